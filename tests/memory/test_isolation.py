"""Isolation: a memory of namespace A (or an agent's private one) is never in another namespace's
answers, by any strategy, the Python API, the CLI or the MCP tools, neither as a hit nor as a graph
neighbour of the code it is linked to; code stays shared. A home written before the columns reads
as all shared."""

from __future__ import annotations

import asyncio
import json

import pyarrow.parquet as pq
import pytest

from ltm.errors import QueryError
from ltm.home import Home
from ltm.memory.records import MemoryInputError
from ltm.query import HybridLTM
from ltm.vectors import VectorStore
from tests.builder import sample_repo
from tests.server.clients import call, error, stdio_session
from tests.test_cli import run

STRATEGIES = ("vector_first", "graph_first", "parallel", "vector_only", "graph_only")
ALPHA = "mem:jsonl:alpha"  # team-a, linked to Validator.validate_token
BRAVO = "mem:jsonl:bravo"  # team-a, private to agent ada
SHARED = "mem:jsonl:common"
CHARLIE = "mem:online:charlie"  # team-b, added online (the overlay: the build does not hold it)
QUESTION = "Validator.validate_token keyring rotation signing key"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("isolation")
    repo = sample_repo(root / "sample")
    home = root / "home"
    notes = root / "team_a.jsonl"
    notes.write_text("\n".join(json.dumps(x) for x in [
        {"id": "alpha", "content": "Validator.validate_token reads the keyring rotation signing key from vault",
         "metadata": {"file_path": "app/auth.py"}},
        {"id": "bravo", "content": "Validator.validate_token keyring rotation signing key: ada's own scratch note",
         "metadata": {"agent_id": "ada", "private": True, "file_path": "app/auth.py"}},
        {"id": "common", "content": "Validator.validate_token keyring rotation signing key is documented for all",
         "metadata": {"namespace": "shared", "file_path": "app/auth.py"}},
    ]) + "\n")
    run("memory", "import", notes, "--namespace", "team-a", "--home", home)
    conv = root / "conv.jsonl"  # a conversation of team-a that edited app/util.py
    conv.write_text("\n".join(json.dumps(x) for x in [
        {"id": "q1", "conversation_id": "c9", "role": "user", "content": "please make the helper back off"},
        {"id": "q2", "conversation_id": "c9", "role": "assistant", "content": "Changing it.", "tool_calls": [
            {"id": "k1", "name": "edit_file", "args": {"path": "app/util.py", "old_string": "return", "new_string": "x"}}]},
    ]) + "\n")
    run("memory", "import", conv, "--format", "tracemem", "--namespace", "team-a", "--home", home)
    run("ingest", repo.path, "--home", home, "--embedder", "hash")
    with HybridLTM(home) as ltm:
        ltm.add("Validator.validate_token keyring rotation signing key lives in team-b's HSM",
                {"id": "charlie", "file_path": "app/auth.py"}, namespace="team-b")
    return Home.resolve(home)


def seen(hits) -> set[str]:
    """Every id an answer shows: the hits, their neighbours and what the neighbours were reached through."""
    out = {h["graph_entity_id"] or h["vector_id"] for h in hits}
    for h in hits:
        for n in h.get("neighbours", ()):
            out |= {n["id"], n.get("via")}
    return out - {None}


def test_every_strategy_answers_a_namespace_its_own_and_the_shared_memories_only(home):
    with HybridLTM(home) as ltm:
        for strategy in STRATEGIES:
            a = seen(ltm.query(QUESTION, strategy=strategy, top_k=20, depth=2, namespace="team-a"))
            ada = seen(ltm.query(QUESTION, strategy=strategy, top_k=20, depth=2, namespace="team-a", agent_id="ada"))
            b = seen(ltm.query(QUESTION, strategy=strategy, top_k=20, depth=2, namespace="team-b"))
            default = seen(ltm.query(QUESTION, strategy=strategy, top_k=20, depth=2))
            # the memories exist and are found where they may be seen ...
            assert {ALPHA, SHARED} <= a and BRAVO in ada and {CHARLIE, SHARED} <= b, strategy
            # ... and nowhere else: not as hits, not as neighbours, not through a neighbour
            assert BRAVO not in a, strategy
            assert not {ALPHA, BRAVO} & b, strategy
            assert not {ALPHA, BRAVO, CHARLIE} & default and SHARED in default, strategy
            assert CHARLIE not in a | ada, strategy


def test_a_private_memory_is_not_a_neighbour_of_its_function_in_another_namespace(home):
    fn = "fn:sample:app/auth.py:Validator.validate_token"
    with HybridLTM(home) as ltm:
        def neighbours(**scope):
            hits = ltm.query("Validator.validate_token", strategy="graph_first", top_k=10, **scope)
            hit = next(h for h in hits if h["graph_entity_id"] == fn)  # code is shared: every namespace finds it
            return {n["id"] for n in hit["neighbours"]}

        assert {ALPHA, SHARED} <= neighbours(namespace="team-a")
        assert CHARLIE in neighbours(namespace="team-b")
        assert not {ALPHA, BRAVO} & neighbours(namespace="team-b")
        assert not {ALPHA, BRAVO, CHARLIE} & neighbours()
        # the graph's own question for a file's memories
        b = seen(ltm.query("memories about app/auth.py", strategy="graph_only", top_k=20, namespace="team-b"))
        assert CHARLIE in b and not {ALPHA, BRAVO} & b


def test_a_namespaces_conversations_are_left_out_of_another_namespaces_answer(home):
    with HybridLTM(home) as ltm:
        assert [c["conversation_id"] for c in ltm.conversations("util.py", namespace="team-a")] == ["c9"]
        assert ltm.conversations("util.py") == [] and ltm.conversations("util.py", namespace="team-b") == []
    out = json.loads(run("conversations", "--file", "util.py", "--namespace", "team-a", "--json", "--home",
                         home.root).output)
    assert [c["conversation_id"] for c in out] == ["c9"]
    assert json.loads(run("conversations", "--file", "util.py", "--json", "--home", home.root).output) == []


def test_a_bad_namespace_is_refused_with_the_allowed_form(home):
    with HybridLTM(home) as ltm, pytest.raises(QueryError, match="namespace \"x' OR 1=1\" is not a valid name"):
        ltm.query(QUESTION, namespace="x' OR 1=1")


def test_a_private_online_memory_needs_its_agent_and_only_that_agent_sees_it(home):
    with HybridLTM(home) as ltm:
        with pytest.raises(MemoryInputError, match="a private memory needs an agent_id"):
            ltm.add("zebra crossing notes", {"private": True})
        ltm.add("zebra crossing notes, ada only", {"id": "zebra", "private": True}, agent_id="ada")
        assert "mem:online:zebra" in seen(ltm.query("zebra crossing notes", strategy="vector_only", agent_id="ada"))
        for strategy in STRATEGIES:
            assert "mem:online:zebra" not in seen(ltm.query("zebra crossing notes", strategy=strategy, agent_id="bob"))


def test_the_cli_query_takes_the_namespace_and_agent(home):
    def ids(*args):
        return seen(json.loads(run("query", QUESTION, "--top-k", "20", "--json", "--home", home.root, *args).output))

    assert ALPHA in ids("--namespace", "team-a") and BRAVO in ids("--namespace", "team-a", "--agent", "ada")
    assert not {ALPHA, BRAVO} & ids("--namespace", "team-b")
    assert not {ALPHA, BRAVO, CHARLIE} & ids()


def test_the_mcp_tools_never_show_another_namespaces_memories(home, tmp_path):
    async def scenario():
        async with stdio_session(home.root, tmp_path / "mcp.log") as s:
            hits = (await call(s, "query", text=QUESTION, top_k=20, namespace="team-b"))["hits"]
            assert CHARLIE in seen(hits) and not {ALPHA, BRAVO} & seen(hits)
            own = (await call(s, "query", text=QUESTION, top_k=20, namespace="team-a", agent_id="ada"))["hits"]
            assert {ALPHA, BRAVO} <= seen(own)
            linked = await call(s, "memories", entity="Validator.validate_token", namespace="team-b")
            assert {m["id"] for m in linked["memories"]} == {SHARED, CHARLIE}
            linked = await call(s, "memories", entity="Validator.validate_token", namespace="team-a")
            assert {m["id"] for m in linked["memories"]} == {SHARED, ALPHA}
            stored = await call(s, "remember", content="team-c rotates validate_token keys weekly", namespace="team-c",
                                metadata={"id": "delta", "file_path": "app/auth.py"})
            assert stored["stored"][0]["graph_entity_id"] == "mem:online:delta"
            linked = await call(s, "memories", entity="Validator.validate_token", namespace="team-b")
            assert "mem:online:delta" not in {m["id"] for m in linked["memories"]}
            linked = await call(s, "memories", entity="Validator.validate_token", namespace="team-c")
            assert "mem:online:delta" in {m["id"] for m in linked["memories"]}

    asyncio.run(scenario())


def test_an_mcp_server_pinned_to_a_namespace_refuses_another(home, tmp_path):
    async def scenario():
        async with stdio_session(home.root, tmp_path / "mcp.log", "--namespace", "team-b") as s:
            hits = (await call(s, "query", text=QUESTION, top_k=20))["hits"]  # no namespace named: the pinned one
            assert CHARLIE in seen(hits) and not {ALPHA, BRAVO} & seen(hits)
            assert "serves namespace 'team-b' only" in await error(s, "query", text=QUESTION, namespace="team-a")
            assert "serves namespace 'team-b' only" in await error(s, "memories", entity="Validator.validate_token",
                                                                   namespace="team-a")
            assert "serves namespace 'team-b' only" in await error(s, "remember", content="sneak",
                                                                   metadata={"namespace": "team-a"})

    asyncio.run(scenario())


def test_a_home_written_before_the_columns_reads_as_shared(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    notes = tmp_path / "n.jsonl"
    notes.write_text(json.dumps({"id": "old", "content": "retry backs off before the keyring rotation",
                                 "metadata": {"file_path": "app/util.py"}}) + "\n")
    run("memory", "import", notes, "--home", home)
    run("ingest", repo.path, "--home", home, "--embedder", "hash")
    h = Home.resolve(home)
    new = ["agent_id", "namespace", "private", "expires_at", "derives_from"]
    for f in (h.lake / "Memory").rglob("part-*.parquet"):  # the lake as an older version wrote it
        t = pq.read_table(f)
        pq.write_table(t.drop_columns([c for c in new if c in t.column_names]), f)
    store = VectorStore(h.vectors)  # and the vector table
    old = store.table().to_arrow()
    old = old.drop_columns([c for c in new if c in old.column_names])
    store._db.drop_table(store.table_name)
    store._db.create_table(store.table_name, old)
    assert "namespace" not in store.table().schema.names
    with HybridLTM(home) as ltm:
        for strategy in STRATEGIES:
            assert "mem:jsonl:old" in seen(ltm.query("retry keyring rotation", strategy=strategy, top_k=10,
                                                     namespace="team-x")), strategy
        # an online add into the old table adds the columns; the old rows stay shared
        ltm.add("keyring rotation is private to bob", {"id": "bob1", "agent_id": "bob", "private": True})
        assert "namespace" in store.table().schema.names
        hits = seen(ltm.query("retry keyring rotation", strategy="vector_only", top_k=10))
        assert "mem:jsonl:old" in hits and "mem:online:bob1" not in hits
        assert "mem:online:bob1" in seen(ltm.query("keyring rotation private bob", strategy="vector_only",
                                                   top_k=10, agent_id="bob"))
    # the next ingest reads the old lake files (missing columns are null) and builds the graph
    run("memory", "sources", "--remove", notes, "--home", home)
    run("ingest", repo.path, "--home", home, "--embedder", "hash")
    with HybridLTM(home) as ltm:
        assert "mem:jsonl:old" in seen(ltm.query("retry keyring rotation", strategy="graph_only", top_k=10))
