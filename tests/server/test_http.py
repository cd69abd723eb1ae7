"""`ltm mcp --http`, driven by the SDK's streamable HTTP client against a server in a subprocess on
127.0.0.1: the bearer token, memories stored and found, impact, changes, freshness, ten clients at
once and a graph rebuilt while the server runs."""

from __future__ import annotations

import asyncio
import subprocess

import httpx2
import pytest

from tests.server.clients import TOKEN, call, free_port, http_session, start_http_server
from tests.server.conftest import CORE_FIXED
from tests.test_cli import run

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def url(project):
    port = free_port()
    proc = start_http_server(project.home, port, project.logs / "http.log")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def test_a_request_without_the_token_is_refused(url, project):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        res = httpx2.post(url, json=INIT, headers={**HEADERS, **headers}, timeout=30)
        assert res.status_code == 401, headers
        assert "Authorization: Bearer" in res.text and TOKEN not in res.text

    async def scenario():
        async with http_session(url) as s:
            assert {t.name for t in (await s.list_tools()).tools} >= {"query", "history", "remember"}

    asyncio.run(scenario())
    assert TOKEN not in (project.logs / "http.log").read_text()
    assert "bearer token is required" in (project.logs / "http.log").read_text()


def test_an_open_address_without_a_token_is_refused_at_start(project, monkeypatch):
    monkeypatch.delenv("LTM_MCP_TOKEN", raising=False)
    res = run("mcp", "--http", "--host", "0.0.0.0", "--home", project.home, ok=False)
    assert res.exit_code != 0 and "LTM_MCP_TOKEN" in res.output and "127.0.0.1" in res.output


def test_remember_then_query_and_memories_find_it(url):
    async def scenario():
        async with http_session(url) as s:
            build = (await call(s, "repositories"))["graph_build"]
            one = await call(s, "remember", content="helper must treat None as zero, callers rely on it",
                             metadata={"file_path": "pkg/core.py", "function_name": "helper", "tags": ["contract"]})
            [stored] = one["stored"]
            assert stored["graph_entity_id"].startswith("mem:") and stored["vector_id"].startswith("vec_")
            assert stored["in_graph"] and {"relation": "RELATES_TO_FUNCTION", "target": "fn:proj:pkg/core.py:helper"} in stored["links"]
            hits = (await call(s, "query", text="helper must treat None as zero", filters={"category": "memory"}))["hits"]
            assert hits[0]["graph_entity_id"] == stored["graph_entity_id"]
            found = await call(s, "memories", entity="helper")
            assert stored["graph_entity_id"] in [m["id"] for m in found["memories"]]

            batch = await call(s, "remember", entries=[
                {"content": "serve is the public entry point", "metadata": {"function_name": "serve"}},
                {"content": "the API module must stay small"}])
            assert len(batch["stored"]) == 2 and len({m["graph_entity_id"] for m in batch["stored"]}) == 2
            assert batch["stored"][0]["links"] and batch["stored"][1]["links"] == []
            assert [m["content"] for m in (await call(s, "memories", entity="serve"))["memories"]] == [
                "serve is the public entry point"]
            assert (await call(s, "repositories"))["graph_build"] == build  # seen at once, the build untouched

    asyncio.run(scenario())


def test_impact_and_repositories(url, project):
    async def scenario():
        async with http_session(url) as s:
            impact = await call(s, "impact", entity="helper", depth=3)
            reached = {(r["other"], r["depth"]) for r in impact["callers"]}
            assert {("compute", 1), ("serve", 1), ("test_compute", 2)} <= reached
            assert impact["tests"] == ["fn:proj:tests/test_core.py:test_compute"]
            co = [c["id"] for c in impact["co_changed"]]
            assert "fn:proj:pkg/core.py:compute" in co and "file:proj:pkg/core.py" not in co
            assert [b["ref"] for b in impact["bugs"]] == ["#12"] and impact["fix_count"] == 1
            repos = (await call(s, "repositories"))["repositories"]
            assert [(r["key"], r["head_sha"], r["mined_tip"], r["history_complete"]) for r in repos] == [
                ("proj", project.shas["rename"], project.shas["rename"], True)]

    asyncio.run(scenario())


def test_detect_changes_of_the_working_tree_and_of_a_diff(url, project):
    core = project.repo.path / "pkg" / "core.py"
    original = core.read_text()
    core.write_text(original.replace("return x + 1", "return x + 2"))
    try:
        diff = project.repo.git("diff", "HEAD")

        async def scenario():
            async with http_session(url) as s:
                return await call(s, "detect_changes"), await call(s, "detect_changes", diff=diff, repo="proj")

        from_tree, from_diff = asyncio.run(scenario())
    finally:
        core.write_text(original)
    assert from_tree["entities"] == from_diff["entities"]
    assert from_tree["graph_head"] == project.repo.head()
    assert from_tree["files"] == [{"old_path": "pkg/core.py", "new_path": "pkg/core.py", "lines_added": 1, "lines_deleted": 1}]
    [helper] = from_tree["entities"]
    assert helper["id"] == "fn:proj:pkg/core.py:helper" and helper["risk"] == "high"
    assert helper["callers"] == ["fn:proj:pkg/api.py:serve", "fn:proj:pkg/core.py:compute"]
    assert "fn:proj:pkg/core.py:compute" in [c["id"] for c in helper["co_changed"]]


def test_ten_clients_at_once_all_get_answers(url):
    async def one(i: int):
        async with http_session(url) as s:
            hits = (await call(s, "query", text=f"compute helper {i}", top_k=3))["hits"]
            rows = (await call(s, "callers", name="helper"))["rows"]
            return len(hits), len(rows)

    async def scenario():
        return await asyncio.gather(*(one(i) for i in range(10)))

    answers = asyncio.run(scenario())
    assert len(answers) == 10 and all(h > 0 and r == 2 for h, r in answers)


def test_a_graph_rebuilt_while_serving_is_answered_without_restart(url, project):
    async def history():
        async with http_session(url) as s:
            return [c["sha"] for c in (await call(s, "history", entity="helper"))["commits"]]

    before = asyncio.run(history())
    project.repo.write("pkg/core.py", CORE_FIXED.replace("return 0", "return -1"))
    sha = project.repo.commit("helper returns -1 for None")
    run("ingest", project.repo.path, "--home", project.home, "--embedder", "hash")
    assert asyncio.run(history()) == [sha, *before]
