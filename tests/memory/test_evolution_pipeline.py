"""Memory evolution through the real pipeline: an ingest writes SUPERSEDES into the graph, retrieval
hides the superseded memory unless asked, and an online add supersedes at once."""

import json

import pytest
from click.testing import CliRunner
from dagster import DagsterInstance

from cli import main
from ltm.graph.read import open_view
from ltm.home import Home
from ltm.memory.store import import_memories
from ltm.query import HybridLTM
from ltm.repos import register_local
from tests.memory.test_pipeline import ingest

OLD = "The release checklist says the staging deploy window is Tuesday 14:00"
NEW = "The release checklist says the staging deploy window is now Thursday 16:00"
OTHER = "Nightly benchmarks of the parser run on the dedicated bench machine"


def _ingested(repo, home_dir, tmp_path, memories):
    """A home holding `memories` ((id, content, created_at)), ingested with `repo`: (home, metadata)."""
    home = Home.resolve(home_dir).create()
    notes = tmp_path / "notes.jsonl"
    notes.write_text("\n".join(json.dumps({"id": i, "content": c, "metadata": {"created_at": t}})
                               for i, c, t in memories) + "\n")
    import_memories(home, notes, "jsonl")
    key = register_local(home, repo.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    meta = ingest(home_dir, key, instance)
    return home, meta


@pytest.fixture
def evolved(repo, home_dir, tmp_path):
    return _ingested(repo, home_dir, tmp_path, [
        ("w1", OLD, "2024-01-10T09:00:00Z"), ("w2", NEW, "2024-02-20T09:00:00Z"), ("b1", OTHER, "2024-01-11T09:00:00Z")])


def _ids(hits):
    return [h["graph_entity_id"] for h in hits]


def test_ingest_writes_supersedes_and_the_transition_into_the_graph(evolved):
    home, meta = evolved
    with open_view(home.graph) as view:
        sup = view.run("MATCH (n:Memory)-[r:SUPERSEDES]->(o:Memory) RETURN n.id, o.id, r.temporal_delta, r.reason")
        tr = view.run("MATCH (o:Memory)-[t:TRANSITIONED_TO]->(n:Memory) RETURN o.id, n.id, t.from_value, t.to_value, t.turn")
        sim = view.run("MATCH (n:Memory)-[s:SIMILAR_TO]->(o:Memory) RETURN n.id, o.id, s.contradicts")
    assert [(n, o, d) for n, o, d, _ in sup] == [("mem:jsonl:w2", "mem:jsonl:w1", 41 * 86400)]
    assert "value changed" in sup[0][3]
    assert [(o, n, t) for o, n, _, _, t in tr] == [("mem:jsonl:w1", "mem:jsonl:w2", 1)]
    assert "14:00" in tr[0][2] and "16:00" in tr[0][3]
    assert sim == [["mem:jsonl:w2", "mem:jsonl:w1", True]]  # the unrelated memory links to neither
    assert meta["evolution"].value["SUPERSEDES"] == 1


def test_retrieval_hides_the_superseded_memory_unless_asked_and_by_id(evolved):
    home, _ = evolved
    with HybridLTM(home.root) as ltm:
        for strategy in ("parallel", "vector_only", "graph_only"):
            hits = ltm.query("staging deploy window", strategy=strategy)
            assert "mem:jsonl:w2" in _ids(hits) and "mem:jsonl:w1" not in _ids(hits), strategy
        shown = ltm.query("staging deploy window", include_superseded=True)
        old = next(h for h in shown if h["graph_entity_id"] == "mem:jsonl:w1")
        assert old["superseded_by"] == "mem:jsonl:w2"
        assert _ids(shown).index("mem:jsonl:w2") < _ids(shown).index("mem:jsonl:w1")  # the current one first
        got = ltm.memories(["mem:jsonl:w1"])
        assert got[0]["content"] == OLD and got[0]["superseded_by"] == "mem:jsonl:w2"


def test_an_online_add_supersedes_at_once(evolved):
    home, _ = evolved
    newest = "The release checklist says the staging deploy window is now Friday 10:00"
    with HybridLTM(home.root) as ltm:
        ltm.query("warm the reader up")
        out = ltm.add(newest, {"id": "w3", "category": "guideline"})
        assert out["supersedes"] == ["mem:jsonl:w1", "mem:jsonl:w2"]  # every older version it contradicts
        hits = _ids(ltm.query("staging deploy window", strategy="parallel"))
        assert hits[0] == "mem:online:w3" and "mem:jsonl:w2" not in hits and "mem:jsonl:w1" not in hits


def test_cli_query_shows_a_superseded_memory_only_when_asked(evolved):
    home, _ = evolved
    run = lambda *a: CliRunner().invoke(main, ["query", "staging deploy window", "--home", str(home.root), *a])  # noqa: E731
    plain, asked = run(), run("--include-superseded")
    assert plain.exit_code == 0 and asked.exit_code == 0, plain.output + asked.output
    assert "Tuesday 14:00" not in plain.output and "Thursday 16:00" in plain.output
    assert "Tuesday 14:00" in asked.output and "superseded by mem:jsonl:w2" in asked.output


def test_an_online_add_supersedes_its_own_subject_not_a_look_alike_of_another_code(repo, home_dir, tmp_path):
    home, _ = _ingested(repo, home_dir, tmp_path, [
        ("sev1", "Sev1 incidents page the on-call engineer within 5 minutes.", "2024-01-10T09:00:00Z"),
        ("sev2", "Sev2 incidents page the on-call engineer within 30 minutes.", "2024-01-12T09:00:00Z")])
    with HybridLTM(home.root) as ltm:
        out = ltm.add("Sev2 incidents now page the on-call engineer within 60 minutes.", {"id": "sev2b"})
    assert out["supersedes"] == ["mem:jsonl:sev2"]  # Sev1's 5 minutes stay current
