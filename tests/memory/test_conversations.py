"""A TraceMem export becomes the conversation graph: `ltm memory import` + `ltm ingest`, then one query."""

import asyncio
import json

from click.testing import CliRunner

from cli import main
from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.home import Home
from tests.builder import SAMPLE_AUTH
from tests.server.clients import call, error, stdio_session

OLD = 'body, _, sig = token.partition(".")'
NEW = 'body, _, sig = token.partition(".")\n        if not body:\n            return False'
AUTH_V2 = SAMPLE_AUTH.replace(OLD, NEW)
ASK_EMPTY = "Why does validate_token accept empty tokens? Fix it."
ASK_RETRY = "Make retry back off."


def run(*args, ok=True):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert (res.exit_code == 0) == ok, res.output
    return res


def numbered(text):
    """A read's result as Claude Code shows it: each line after its number."""
    return "".join(f"{i:6}\t{line}\n" for i, line in enumerate(text.splitlines(), start=1))


def export(path, repo_path):
    """Two conversations, in both shapes TraceMem reads: Claude Code lines (tool_use / tool_result blocks)
    and flat messages (tool_calls, `tool` messages)."""
    auth = f"{repo_path}/app/auth.py"
    lines = [
        {"uuid": "u1", "sessionId": "c1", "type": "user", "timestamp": "2026-01-05T10:00:00Z",
         "message": {"role": "user", "content": ASK_EMPTY}},
        {"uuid": "a1", "sessionId": "c1", "type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Reading the validator."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": auth}}]}},
        {"uuid": "r1", "sessionId": "c1", "type": "user", "message": {"role": "user", "content": [  # numbered lines,
            {"type": "tool_result", "tool_use_id": "t1", "content": numbered(SAMPLE_AUTH)}]},  # the file as it is:
         "toolUseResult": {"type": "text", "file": {"filePath": auth, "content": SAMPLE_AUTH, "startLine": 1,
                                                    "numLines": SAMPLE_AUTH.count("\n"), "totalLines": SAMPLE_AUTH.count("\n")}}},
        {"uuid": "bad", "sessionId": "c1", "type": "user", "message": {"role": "user"}},  # no content
        {"uuid": "a2", "sessionId": "c1", "type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t2", "name": "Edit", "input": {"file_path": auth, "old_string": OLD, "new_string": NEW}}]}},
        {"uuid": "r2", "sessionId": "c1", "type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "The file has been updated."}]},
         "toolUseResult": {"filePath": auth, "oldString": OLD, "newString": NEW, "originalFile": SAMPLE_AUTH}},
        {"id": "m1", "conversation_id": "c2", "role": "user", "content": ASK_RETRY},
        {"id": "m2", "conversation_id": "c2", "role": "assistant", "content": "Changing retry.", "tool_calls": [
            {"id": "k1", "name": "edit_file", "args": {"path": "app/util.py", "old_string": "return", "new_string": "x"}},
            {"id": "k2", "name": "read_file", "args": {"path": "app/auth.py"}}]},
        {"id": "m3", "conversation_id": "c2", "role": "tool", "tool_call_id": "k1", "content": "edited"},
        {"id": "m4", "conversation_id": "c2", "role": "tool", "tool_call_id": "k2", "content": "not the file"},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_tracemem_export_becomes_the_conversation_graph(repo, home_dir, tmp_path):
    repo.write("app/auth.py", AUTH_V2).commit("fix: refuse empty tokens")
    first, fixed = repo.git("rev-parse", "HEAD~1"), repo.head()
    conv = export(tmp_path / "conv.jsonl", repo.path)

    res = run("memory", "import", conv, "--format", "tracemem", "--home", home_dir)
    assert "line 4: missing content" in res.output and "imported 5 memories" in res.output
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")

    with open_current(Home.resolve(home_dir).graph) as conn:
        auth_file = query(conn, "MATCH (f:File) WHERE f.path = 'app/auth.py' RETURN f.id")[0][0]
        chain = query(conn, "MATCH (a:Memory)-[r:MESSAGE]->(b:Memory) RETURN r.conversation_id, r.turn, a.id, b.id "
                            "ORDER BY r.conversation_id, r.turn")
        turns = query(conn, "MATCH (m:Memory) WHERE m.source = 'tracemem' RETURN m.id, m.conversation_id, m.role, m.turn")
        uses = query(conn, "MATCH (a:Memory)-[t:TOOL_USE]->(v:FileVersion) OPTIONAL MATCH (v)-[:VERSION_OF]->(f:File) "
                           "OPTIONAL MATCH (v)-[:AT_COMMIT]->(k:Commit) RETURN a.id, t.tool, t.action, v.path, f.id, k.sha")
    mem = "mem:tracemem:"
    assert chain == [["c1", 0, mem + "c1:u1", mem + "c1:a1"], ["c1", 1, mem + "c1:a1", mem + "c1:a2"],
                     ["c2", 0, mem + "c2:m1", mem + "c2:m2"]]
    assert sorted(turns) == [[mem + "c1:a1", "c1", "agent", 1], [mem + "c1:a2", "c1", "agent", 2],
                             [mem + "c1:u1", "c1", "user", 0], [mem + "c2:m1", "c2", "user", 0],
                             [mem + "c2:m2", "c2", "agent", 1]]
    util_file = auth_file.replace("app/auth.py", "app/util.py")
    auth = f"{repo.path}/app/auth.py"
    assert sorted(uses, key=str) == sorted([
        [mem + "c1:a1", "Read", "read", auth, auth_file, first],  # the content read is the blob of the 2nd commit
        [mem + "c1:a2", "Edit", "edit", auth, auth_file, fixed],  # the file after the edit is the fix's blob
        [mem + "c2:m2", "edit_file", "edit", "app/util.py", util_file, None],  # a diff edit: the path alone
        [mem + "c2:m2", "read_file", "read", "app/auth.py", auth_file, None],  # content of no commit
    ], key=str)

    # "Which conversations edited auth.py, and what did the user ask?" is one command
    edited = json.loads(run("conversations", "--file", "auth.py", "--home", home_dir, "--json").output)
    assert [c["conversation_id"] for c in edited] == ["c1"]
    (use,) = edited[0]["uses"]
    assert (use["tool"], use["asked"], use["commits"], use["file"]) == ("Edit", ASK_EMPTY, [fixed], auth_file)
    assert [t["content"] for t in edited[0]["user_turns"]] == [ASK_EMPTY]
    read = json.loads(run("conversations", "--file", "app/auth.py", "--action", "read", "--home", home_dir,
                          "--json").output)
    assert [(c["conversation_id"], [u["tool"] for u in c["uses"]]) for c in read] == [("c1", ["Read"]), ("c2", ["read_file"])]
    text = run("conversations", "--file", "util.py", "--home", home_dir).output
    assert "conversation c2" in text and f"user asked: {ASK_RETRY}" in text and "c1" not in text
    assert "no conversation edited" in run("conversations", "--file", "README.md", "--home", home_dir).output

    async def over_mcp():  # the same answer from the MCP tool, through the SDK's client
        async with stdio_session(home_dir, tmp_path / "mcp.log") as s:
            return await call(s, "conversations", file="auth.py"), await error(s, "conversations", file="/")

    by_tool, bad = asyncio.run(over_mcp())
    assert by_tool["conversations"] == edited
    assert "names no file" in bad

    # recomputed from the lake on every run: the same lake gives the same graph; graph and vectors agree
    stats = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert (stats["nodes"]["FileVersion"], stats["rels"]["MESSAGE"], stats["rels"]["TOOL_USE"]) == (4, 3, 4)
    run("ingest", repo.path, "--home", home_dir)
    assert json.loads(run("stats", "--json", "--home", home_dir).output) == stats
    assert json.loads(run("reconcile", "--json", "--home", home_dir).output)["ok"] is True


def test_a_malformed_turn_is_reported_and_the_other_turns_build(tmp_path):
    import polars as pl

    from ltm.memory.conversations import ConversationStats, conversation_tables
    from ltm.memory.linking import CodeIndex

    def turn(mid, conv, role, index, tools=()):
        return {"id": mid, "project_id": None, "conversation": json.dumps(
            {"conversation": conv, "role": role, "index": index, "tools": list(tools)})}

    memories = pl.DataFrame([
        turn("mem:t:u", "c", "user", 0),
        {"id": "mem:t:x", "project_id": None, "conversation": '{"role": "boss"}'},  # e.g. a jsonl memory's metadata
        turn("mem:t:a", "c", "agent", 1, [{"id": "1", "tool": "Edit", "action": "edit", "path": "lib/x.py", "blob": None}]),
        turn("mem:t:b", "c", "agent", 2, [{"tool": "Edit"}]),  # a tool use without a path
        {"id": "mem:j:1", "project_id": None, "conversation": None},  # not a conversation
    ])
    files = pl.DataFrame({"id": ["file:r:lib/x.py"], "repo": ["r"], "path": ["lib/x.py"]})
    entities = pl.DataFrame(schema={"id": pl.String, "label": pl.String, "repo": pl.String, "name": pl.String,
                                    "qualified_name": pl.String, "file_path": pl.String, "module": pl.String})
    asked, stats = [], ConversationStats()
    out = conversation_tables(memories, CodeIndex.build(files, entities), lambda blobs: asked.append(blobs), stats)
    assert [b.split(":")[:3] for b in stats.bad_turns] == [["mem", "t", "x"], ["mem", "t", "b"]]
    assert "a turn is {conversation, role: user|agent" in stats.bad_turns[0] and "path" in stats.bad_turns[1]
    assert (stats.conversations, stats.turns) == (1, 2)
    assert out["MESSAGE"].select("src", "dst").rows() == [("mem:t:u", "mem:t:a")]
    assert out["VERSION_OF"].rows() == [("fver:lib/x.py", "file:r:lib/x.py")]
    assert asked == []  # no content, so no history lookup


def test_which_content_a_file_version_takes(tmp_path):
    import subprocess

    from ltm.memory.sources import tool_use_files
    from ltm.memory.turns import tool_results, tool_uses

    def hash_object(text):  # git's own blob id, the one file_changes records
        return subprocess.run(["git", "hash-object", "--stdin"], input=text.encode(), capture_output=True,
                              check=True).stdout.decode().strip()

    def result(call_id, text, structured=None):
        return tool_results({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": text}]},
            **({"toolUseResult": structured} if structured else {})})

    results = {
        **result("part", "partial", {"type": "text", "file": {"filePath": "a.py", "content": "x = 1\n", "startLine": 5,
                                                              "numLines": 1, "totalLines": 9}}),
        **result("upd", "The file has been updated."),
        **tool_results({"role": "tool", "tool_call_id": "plain", "content": "y = 2\n"}),
    }
    assert tool_results({"role": "user", "content": "a question"}) is None  # a turn, not a result line
    uses = tool_uses([
        ("Write", {"file_path": "w.py", "content": ""}, "w"),  # an empty file is content too
        ("Read", {"file_path": "a.py", "offset": 5, "limit": 1}, "part"),  # part of the file: path alone
        ("Edit", {"file_path": "e.py", "old_string": "a", "new_string": "b"}, "upd"),  # result says nothing of the file
        ("read_file", {"path": "p.py"}, "plain"),  # a flat tool message: its text as given
        ("Read", {"file_path": "r.py"}, "missing"),  # no result in the export
        ("diff", {"paths": ["file:///a.py", "file:///b.py"]}, "plain"),  # two files: no one's content
    ], tool_use_files, results)
    assert [(u["tool"], u["action"], u["path"], u["blob"]) for u in uses] == [
        ("Write", "edit", "w.py", hash_object("")), ("Read", "read", "a.py", None), ("Edit", "edit", "e.py", None),
        ("read_file", "read", "p.py", hash_object("y = 2\n")), ("Read", "read", "r.py", None),
        ("diff", "read", "/a.py", None), ("diff", "read", "/b.py", None)]
