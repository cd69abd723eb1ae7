"""DERIVES_FROM: a semantic memory -> the episodes it was extracted from, with method and confidence,
from amplihack's provenance edges and from JSON Lines metadata, into the lake and the graph build."""

from __future__ import annotations

import json
import time

import polars as pl
import pytest

from ltm.graph.build import build_graph
from ltm.graph.engine import default_engine, open_database, query
from ltm.graph.read import open_view
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.store import import_memories
from ltm.query import HybridLTM


def make_cognitive_amplihack_db(path):
    """amplihack's cognitive memory store: nodes keyed by node_id with an agent_id, DERIVES_FROM from a
    semantic memory to the episodes it was extracted from, and a sensory memory."""
    with open_database(path, read_only=False, engine_name="kuzu") as conn:
        query(conn, "CREATE NODE TABLE SemanticMemory(node_id STRING, agent_id STRING, concept STRING, content STRING, "
                    "confidence DOUBLE, created_at INT64, PRIMARY KEY(node_id))")
        query(conn, "CREATE NODE TABLE EpisodicMemory(node_id STRING, agent_id STRING, content STRING, "
                    "created_at INT64, PRIMARY KEY(node_id))")
        query(conn, "CREATE NODE TABLE SensoryMemory(node_id STRING, agent_id STRING, content STRING, "
                    "created_at INT64, PRIMARY KEY(node_id))")
        query(conn, "CREATE REL TABLE DERIVES_FROM(FROM SemanticMemory TO EpisodicMemory, derived_at INT64)")
        for label, props in [
            ("SemanticMemory", {"node_id": "s1", "agent_id": "builder", "concept": "retries",
                                "content": "retry needs jitter", "confidence": 0.8, "created_at": 1767225600}),
            ("EpisodicMemory", {"node_id": "e1", "agent_id": "builder", "content": "retry storm at 09:00",
                                "created_at": 1767225600}),
            ("EpisodicMemory", {"node_id": "e2", "agent_id": "builder", "content": "second retry storm",
                                "created_at": 1767225600}),
            ("SensoryMemory", {"node_id": "x1", "agent_id": "builder", "content": "terminal showed 503",
                               "created_at": int(time.time())}),  # seen now: within the sensory TTL
            ("SensoryMemory", {"node_id": "x0", "agent_id": "builder", "content": "terminal showed 200",
                               "created_at": 1767225600}),  # seen long ago: expired, not imported
        ]:
            keys = ", ".join(f"{k}: ${k}" for k in props)
            query(conn, f"CREATE (m:{label} {{{keys}}})", props)
        for e in ("e1", "e2"):
            query(conn, "MATCH (s:SemanticMemory {node_id: 's1'}), (e:EpisodicMemory {node_id: $e}) "
                        "CREATE (s)-[:DERIVES_FROM {derived_at: 1767225600}]->(e)", {"e": e})


def derivations(home: Home) -> set[tuple]:
    """The DERIVES_FROM edges of the current graph build."""
    with open_view(home.graph) as view:
        return {tuple(r) for r in view.run(
            "MATCH (a:Memory)-[r:DERIVES_FROM]->(b:Memory) RETURN a.id, b.id, r.method, r.confidence")}


@pytest.mark.skipif(default_engine() != "kuzu", reason="an amplihack database is a Kuzu file; a process on the "
                    "ladybug engine cannot load Kuzu beside it")
def test_amplihack_provenance_becomes_derives_from_in_the_lake_and_the_graph(tmp_path):
    db = tmp_path / "amp.kuzu"
    make_cognitive_amplihack_db(db)
    home = Home.resolve(tmp_path / "home").create()
    report = import_memories(home, db, "amplihack")
    assert (report.skipped, report.loaded, report.expired) == ([], 4, 1)
    rows = {r["id"]: r for r in pl.from_arrow(Lake(home.lake).read("Memory", MEMORY_PARTITION)).to_dicts()}
    assert rows["mem:amplihack:s1"]["agent_id"] == "builder" and rows["mem:amplihack:s1"]["namespace"] == "shared"
    assert rows["mem:amplihack:x1"]["memory_type"] == "sensory"
    build_graph(home.graph, Lake(home.lake))
    assert derivations(home) == {
        ("mem:amplihack:s1", "mem:amplihack:e1", "amplihack:derives_from", 0.8),
        ("mem:amplihack:s1", "mem:amplihack:e2", "amplihack:derives_from", 0.8),
    }


def test_json_lines_derives_from_metadata_and_online_adds(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    home.update_settings(embedder="hash")
    src = tmp_path / "m.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in [
        {"id": "ep1", "content": "the deploy failed on a missing env var", "memory_type": "episodic"},
        {"id": "ep2", "content": "the deploy failed again, same env var", "memory_type": "episodic"},
        {"id": "rule", "content": "deploys need DATABASE_URL set", "memory_type": "semantic",
         "metadata": {"derives_from": ["ep1", {"id": "ep2", "method": "llm-summary", "confidence": 0.7}]}},
        {"id": "bad", "content": "x", "metadata": {"derives_from": [{"id": "ep1", "confidence": 3}]}},
    ]) + "\n")
    report = import_memories(home, src, "jsonl")
    assert report.loaded == 3 and "confidence 3 is not a number from 0 to 1" in report.skipped[0][1]
    build_graph(home.graph, Lake(home.lake))
    assert derivations(home) == {
        ("mem:jsonl:rule", "mem:jsonl:ep1", "import", None),
        ("mem:jsonl:rule", "mem:jsonl:ep2", "llm-summary", 0.7),
    }
    # an online memory derived from an imported episode: in the lake at once, in the next build
    with HybridLTM(home) as ltm:
        ltm.add("env vars are checked before deploys now", {"id": "lesson", "memory_type": "semantic",
                                                              "derives_from": ["mem:jsonl:ep1"]})
    lake_rows = pl.from_arrow(Lake(home.lake).read("DERIVES_FROM", MEMORY_PARTITION))
    assert ("mem:online:lesson", "mem:jsonl:ep1") in set(zip(lake_rows["src"], lake_rows["dst"]))
    build_graph(home.graph, Lake(home.lake))
    assert ("mem:online:lesson", "mem:jsonl:ep1", "import", None) in derivations(home)
    # a re-import that drops the provenance drops the edge
    src.write_text(json.dumps({"id": "rule", "content": "deploys need DATABASE_URL set"}) + "\n")
    import_memories(home, src, "jsonl")
    build_graph(home.graph, Lake(home.lake))
    assert {d[0] for d in derivations(home)} == {"mem:online:lesson"}
