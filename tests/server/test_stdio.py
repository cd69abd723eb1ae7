"""`ltm mcp` over stdio, driven by the SDK's own client: the tools, their answers against the CLI
and git, and the errors a bad argument gets."""

from __future__ import annotations

import asyncio
import json

from tests.server.clients import call, error, stdio_session
from tests.test_cli import run

TOOLS = {"query", "callers", "callees", "dependents", "history", "impact", "detect_changes", "remember", "memories",
         "repositories", "conversations"}


def test_tools_answer_what_the_cli_and_git_say(project):
    cli_callers = json.loads(run("calls", "helper", "--json", "--home", project.home).output)
    cli_callees = json.loads(run("calls", "serve", "--callees", "--json", "--home", project.home).output)
    cli_dependents = json.loads(run("dependents", "pkg.core", "--json", "--home", project.home).output)
    git_commits = project.repo.git("log", "--format=%H", "-s", "-L", ":helper:pkg/core.py").split()

    async def scenario():
        async with stdio_session(project.home, project.logs / "stdio.log") as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) == TOOLS
            for t in tools.values():
                assert len(t.description) > 60 and t.output_schema, t.name
                for name, prop in t.input_schema["properties"].items():
                    assert prop.get("description"), (t.name, name)

            callers = await call(s, "callers", name="helper")
            assert [(r["other"], r["other_file"], r["other_line"], r["confidence"]) for r in callers["rows"]] == [
                (r["caller"], r["caller_file"], r["caller_line"], r["confidence"]) for r in cli_callers]
            assert {r["depth"] for r in callers["rows"]} == {1}
            callees = await call(s, "callees", name="serve")
            assert sorted(r["other"] for r in callees["rows"]) == sorted(r["callee"] for r in cli_callees)
            deps = await call(s, "dependents", module="pkg.core")
            assert deps["rows"] == cli_dependents

            history = await call(s, "history", entity="helper")
            assert history["entity"]["id"] == "fn:proj:pkg/core.py:helper"
            assert [c["sha"] for c in history["commits"]] == git_commits  # newest first, like git log
            in_repo = await call(s, "history", entity="helper", repo="proj")
            assert in_repo["entity"] == history["entity"] and in_repo["commits"] == history["commits"]
            assert (await call(s, "memories", entity="pkg/core.py", repo="proj"))["entity"]["id"] == "file:proj:pkg/core.py"
            first = history["commits"][-1]
            assert (first["author"], first["message"], first["lines_added"], first["lines_deleted"]) == (
                "Ada Lovelace", "Add core helpers", 2, 0)
            assert first["date"].startswith("2023-11-14T23:13:20")
            [bug] = history["bugs"]
            assert bug["ref"] == "#12" and bug["fixed_by"] == [project.shas["fix"]]
            assert bug["introduced_by"] == [project.shas["add"]]

            renamed = await call(s, "history", entity="yell")
            assert [f["id"] for f in renamed["renamed_from"]] == [
                "fn:proj:pkg/strings.py:shout", "fn:proj:pkg/text.py:shout"]
            assert [c["sha"] for c in renamed["commits"]] == [project.shas["rename"], project.shas["add"]]
            assert (renamed["commits"][0]["lines_added"], renamed["commits"][0]["lines_deleted"]) == (1, 1)
            file_history = await call(s, "history", entity="pkg/strings.py")
            assert [f["name"] for f in file_history["renamed_from"]] == ["pkg/text.py"]

            hits = (await call(s, "query", text="helper crashed on None", top_k=3))["hits"]
            assert 0 < len(hits) <= 3 and all(h["graph_entity_id"] and h["score"] > 0 for h in hits)
            only = (await call(s, "query", text="compute", filters={"category": "function"}))["hits"]
            assert only and {h["category"] for h in only} == {"function"}

    asyncio.run(scenario())


def test_bad_arguments_are_tool_errors_that_say_what_to_do(project):
    async def scenario():
        async with stdio_session(project.home, project.logs / "stdio.log") as s:
            assert "the query text is empty" in await error(s, "query", text="  ")
            assert "strategy" in await error(s, "query", text="x", strategy="sideways")
            assert "top_k" in await error(s, "query", text="x", top_k=0)
            assert "filters.colour" in await error(s, "query", text="x", filters={"colour": "red"})
            assert "filters.since" in await error(s, "query", text="x", filters={"since": "yesterday"})
            assert "invalid repository key" in await error(s, "query", text="x", filters={"repo": "../x"})
            msg = await error(s, "callers", name="no_such_function")
            assert "no function named 'no_such_function'" in msg and "query" in msg
            msg = await error(s, "history", entity="nothing/here.py")
            assert "no function, class or file named" in msg
            assert "no Function with id" in await error(s, "memories", entity="fn:proj:pkg/core.py:gone")
            assert "depth" in await error(s, "callers", name="helper", depth=9)
            assert "either content" in await error(s, "remember", content="a", entries=[{"content": "b"}])
            assert "nothing to remember" in await error(s, "remember")
            assert "no file in the diff" in await error(s, "detect_changes", diff="not a diff")
            assert "no repository 'elsewhere'" in await error(s, "detect_changes", repo="elsewhere")
            assert "importance 'high' is not a number" in await error(s, "remember", content="x", metadata={"importance": "high"})
            # the server still answers after errors
            assert (await call(s, "callers", name="helper"))["rows"]

    asyncio.run(scenario())


def test_a_missing_home_is_one_line_before_anything_is_served(tmp_path):
    res = run("mcp", "--home", tmp_path / "nowhere", ok=False)
    assert res.exit_code != 0 and "nowhere" in res.output and "Traceback" not in res.output
