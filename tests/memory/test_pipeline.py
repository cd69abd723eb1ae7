"""Memories through the real pipeline: import, backfill in the ingest job, online adds."""

import json

import numpy as np
import pytest
from dagster import DagsterInstance, materialize

from assets import ALL_ASSETS
from ltm.embed.hashing import HashEmbedder
from ltm.errors import DimensionMismatchError, LtmError
from ltm.graph.build import current_build
from ltm.graph.engine import query
from ltm.graph.read import open_current, open_view
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.store import import_memories
from ltm.query import HybridLTM
from ltm.reconcile import reconcile
from ltm.repos import register_local
from ltm.vectors import VectorStore
from tests.assets.test_materialize import _resources


def ingest(home_dir, key, instance):
    result = materialize(ALL_ASSETS, partition_key=key, instance=instance, resources=_resources(str(home_dir)))
    assert result.success
    return result.asset_materializations_for_node("memory_links")[0].metadata


def memory_edges(home, mem_id=None):
    """The memory edges a reader sees: the build's and those of the online memories it lacks."""
    with open_view(home.graph) as view:
        rows = view.run("MATCH (m:Memory)-[r]->(e) RETURN m.id, label(r), e.id, r.relevance_score")
        overlay = view.overlay
        rows += [[lk.memory, lk.rel, lk.entity, lk.relevance_score] for links in overlay.links_from.values() for lk in links]
    return {(m, rel, e, s) for m, rel, e, s in rows if mem_id in (None, m)}


def built_memory(home, mem_id):
    """The Memory node's content and vector_id in the current build itself ([] when only the overlay has it)."""
    with open_current(home.graph) as conn:
        return query(conn, "MATCH (m:Memory) WHERE m.id = $id RETURN m.content, m.vector_id", {"id": mem_id})


@pytest.fixture
def ingested(repo, home_dir, tmp_path):
    repo.write("docs/design.md", "# Design\n\n## Auth\nparse_header splits the header.\n").commit("docs")
    home = Home.resolve(home_dir).create()
    notes = tmp_path / "notes.jsonl"
    notes.write_text("\n".join([
        json.dumps({"id": "n1", "content": "refactored the validation in validate_token",
                    "metadata": {"file_path": "/home/ada/sample/app/auth.py"}}),
        "garbage line",
        json.dumps({"id": "n2", "content": "retry() must back off", "metadata": {"category": "guideline"}}),
    ]) + "\n")
    report = import_memories(home, notes, "jsonl")  # before the code graph exists
    assert (report.loaded, [n for n, _ in report.skipped]) == (2, [2])
    key = register_local(home, repo.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    meta = ingest(home_dir, key, instance)
    return home, key, instance, meta


def test_ingest_backfills_links_of_memories_imported_before_the_code_existed(ingested):
    home, key, _, meta = ingested
    edges = memory_edges(home)
    assert ("mem:jsonl:n1", "RELATES_TO_FILE", f"file:{key}:app/auth.py", 1.0) in edges
    assert ("mem:jsonl:n1", "RELATES_TO_FUNCTION", f"fn:{key}:app/auth.py:Validator.validate_token", 0.8) in edges
    assert ("mem:jsonl:n2", "RELATES_TO_FUNCTION", f"fn:{key}:app/util.py:retry", 0.8) in edges
    # documentation memories come from the repository and link too
    assert (f"mem:docs:{key}:docs/design.md#2", "RELATES_TO_FUNCTION", f"fn:{key}:app/auth.py:parse_header", 0.8) in edges
    assert meta["links_added"].value == len(edges) and meta["links_removed"].value == 0
    report = reconcile(home.graph, home.vectors)
    assert report.ok and report.by_label["Memory"] == 2 + 3  # two imported, three doc chunks (README, 2 in design)


def test_rerun_after_code_changes_reports_links_added_and_removed(ingested, repo):
    home, key, instance, _ = ingested
    meta = ingest(home.root, key, instance)
    assert (meta["links_added"].value, meta["links_removed"].value) == (0, 0)  # nothing changed
    repo.write("app/util.py", 'def retry_forever(times):\n    """Retry."""\n    return times\n'
               "\n\ndef backoff_delay():\n    return 1\n").commit("rename retry")
    import_memories(home, _jsonl(home.root.parent / "more.jsonl", [
        {"id": "n3", "content": "backoff_delay is too short"}]), "jsonl")
    meta = ingest(home.root, key, instance)
    assert meta["links_removed"].value == 1 and meta["removed_sample"].value == [
        f"RELATES_TO_FUNCTION mem:jsonl:n2 -> fn:{key}:app/util.py:retry"]
    assert meta["added_sample"].value == [f"RELATES_TO_FUNCTION mem:jsonl:n3 -> fn:{key}:app/util.py:backoff_delay"]
    assert ("mem:jsonl:n2", "RELATES_TO_FUNCTION", f"fn:{key}:app/util.py:retry", 0.8) not in memory_edges(home)


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_online_add_is_searchable_at_once_in_the_graph_at_once_and_survives_a_rebuild(ingested):
    home, key, instance, _ = ingested
    ltm = HybridLTM(home.root)
    text = "Validator.validate_token must reject expired tokens"
    out = ltm.add(text, {"id": "o1", "file_path": "app/auth.py", "tags": ["auth"], "category": "guideline",
                         "graph_links": [{"type": "RELATES_TO_FUNCTION", "target": "parse_header",
                                          "properties": {"relevance_score": 0.6, "context": "mentioned in review"}}]})
    assert out["graph_entity_id"] == "mem:online:o1" and out["vector_id"].startswith("vec_")
    assert out["in_graph"] and out["link_errors"] == []
    hit = ltm.query(text, top_k=1)[0]
    assert (hit["graph_entity_id"], hit["vector_id"], hit["category"]) == ("mem:online:o1", out["vector_id"], "guideline")
    expected = {
        ("mem:online:o1", "RELATES_TO_FILE", f"file:{key}:app/auth.py", 1.0),
        ("mem:online:o1", "RELATES_TO_FUNCTION", f"fn:{key}:app/auth.py:Validator.validate_token", 0.9),
        ("mem:online:o1", "RELATES_TO_FUNCTION", f"fn:{key}:app/auth.py:parse_header", 0.6),
    }
    build = current_build(home.graph)
    assert memory_edges(home, "mem:online:o1") == expected
    assert built_memory(home, "mem:online:o1") == []  # not copied into the build: the overlay has it
    with open_view(home.graph) as view:
        assert view.nodes(["mem:online:o1"])["mem:online:o1"].vector_id == out["vector_id"]
        assert len(view.overlay) == 1
    assert reconcile(home.graph, home.vectors).ok
    ingest(home.root, key, instance)  # a full rebuild from the lake
    assert current_build(home.graph) != build
    assert memory_edges(home, "mem:online:o1") == expected  # once each: the build's, none from the overlay
    assert built_memory(home, "mem:online:o1") == [[text, out["vector_id"]]]
    with open_view(home.graph) as view:
        assert len(view.overlay) == 0
    assert [h["graph_entity_id"] for h in ltm.query(text, top_k=10)].count("mem:online:o1") == 1
    assert VectorStore(home.vectors).links()[out["vector_id"]] == "mem:online:o1"
    assert reconcile(home.graph, home.vectors).ok


def test_online_adds_in_one_process_link_to_code_an_ingest_added_between_them(ingested, repo):
    home, key, instance, _ = ingested
    ltm = HybridLTM(home.root)  # one long-lived process: the code index is kept between adds
    assert ltm.add("rotate_signing_keys runs nightly", {"id": "o3"})["links"] == 0  # no such function yet
    assert ltm.add("parse_header splits on colons", {"id": "o4"})["links"] == 1
    repo.write("app/keys.py", "def rotate_signing_keys():\n    return 1\n").commit("Add key rotation")
    ingest(home.root, key, instance)
    out = ltm.add("rotate_signing_keys must keep the previous key", {"id": "o5"})
    assert memory_edges(home, "mem:online:o5") == {
        ("mem:online:o5", "RELATES_TO_FUNCTION", f"fn:{key}:app/keys.py:rotate_signing_keys", 0.8)}
    assert out["links"] == 1


def test_add_many_stores_each_memory_with_its_own_links_and_errors(ingested):
    home, key, _, _ = ingested
    ltm = HybridLTM(home.root)
    before = current_build(home.graph)
    out = ltm.add_many([
        ("parse_header must accept folded lines", {"id": "b1"}),
        ("the deploy checklist lives in the wiki", {"id": "b2", "category": "guideline"}),
        ("see the token check", {"id": "b3", "graph_links": [{"type": "RELATES_TO_FUNCTION", "target": "nope"}]}),
    ])
    assert [o["graph_entity_id"] for o in out] == ["mem:online:b1", "mem:online:b2", "mem:online:b3"]
    assert [o["links"] for o in out] == [1, 0, 0] and all(o["in_graph"] for o in out)
    assert out[2]["link_errors"] and "nope" in out[2]["link_errors"][0] and out[0]["link_errors"] == []
    assert memory_edges(home, "mem:online:b1") == {
        ("mem:online:b1", "RELATES_TO_FUNCTION", f"fn:{key}:app/auth.py:parse_header", 0.8)}
    assert memory_edges(home, "mem:online:b2") == set()
    hit = ltm.query("the deploy checklist lives in the wiki", top_k=1)[0]
    assert (hit["graph_entity_id"], hit["category"]) == ("mem:online:b2", "guideline")
    assert current_build(home.graph) == before  # no copy of the build per add: readers overlay the lake
    assert reconcile(home.graph, home.vectors).ok


def test_add_many_with_a_bad_entry_names_it_and_writes_nothing(ingested):
    home, _, _, _ = ingested
    lake_rows = Lake(home.lake).read("Memory").num_rows
    vectors = VectorStore(home.vectors).count()
    build = current_build(home.graph)
    with pytest.raises(LtmError, match=r"memory 2 of 3: tags must be a list of strings"):
        HybridLTM(home.root).add_many([("fine", {"id": "c1"}), ("bad", {"tags": "auth"}), ("fine too", None)])
    assert Lake(home.lake).read("Memory").num_rows == lake_rows
    assert VectorStore(home.vectors).count() == vectors and current_build(home.graph) == build
    with pytest.raises(LtmError, match=r"memory 1 of 2: an entry is a \(content, metadata\) pair, got 'just text'"):
        HybridLTM(home.root).add_many(["just text", ("fine", None)])
    assert Lake(home.lake).read("Memory").num_rows == lake_rows


class _DriftedModel(HashEmbedder):
    """A model whose server now answers with another dimension than the vector table holds."""

    def embed(self, texts):
        return np.ones((len(texts), self.dim + 8), dtype=np.float32)


def test_online_add_refuses_vectors_of_another_dimension_and_writes_nothing(ingested, monkeypatch):
    home, _, _, _ = ingested
    lake_rows, vectors = Lake(home.lake).read("Memory").num_rows, VectorStore(home.vectors).count()
    monkeypatch.setattr("ltm.memory.online.online_embedder", lambda home, store: _DriftedModel(384))
    with pytest.raises(DimensionMismatchError, match=r"shape \(1, 392\) for 1 texts, the vector table holds dimension 384"):
        HybridLTM(home.root).add("parse_header must accept folded lines", {"id": "d1"})
    assert Lake(home.lake).read("Memory").num_rows == lake_rows and VectorStore(home.vectors).count() == vectors


def test_online_add_stores_the_memory_even_when_linking_fails(ingested):
    home, key, _, _ = ingested
    bad = home.lake / "Function" / f"repo={key}" / "part-99999.parquet"
    bad.write_bytes(b"not parquet")  # the code side is unreadable: linking fails
    out = HybridLTM(home.root).add("validate_token needs a cache", {"id": "o2"})
    assert out["links"] == 0 and out["link_errors"] and "linking failed" in out["link_errors"][0]
    assert HybridLTM(home.root).query("validate_token needs a cache", top_k=1)[0]["graph_entity_id"] == "mem:online:o2"
    with open_view(home.graph) as view:
        assert view.details(["mem:online:o2"])["mem:online:o2"]["content"] == "validate_token needs a cache"


def test_registered_and_configured_sources_are_reread_on_every_run(repo, home_dir, tmp_path):
    from click.testing import CliRunner

    from cli import main

    notes = _jsonl(tmp_path / "notes.jsonl", [{"id": "n1", "content": "parse_header drops the scheme"}])
    res = CliRunner().invoke(main, ["memory", "import", str(notes), "--home", str(home_dir)])
    assert res.exit_code == 0, res.output
    conv = _jsonl(tmp_path / "conv.jsonl", [{"id": "m1", "conversation_id": "c1", "role": "assistant", "content": [
        {"type": "text", "text": "Edited the header parsing."},
        {"type": "tool_use", "name": "Edit", "input": {"file_path": f"file://{repo.path}/app/auth.py"}}]}])
    home = Home.resolve(home_dir)
    key = register_local(home, repo.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    configured = [f"tracemem:{conv}", f"jsonl:{tmp_path / 'missing.jsonl'}"]

    def run():
        result = materialize(ALL_ASSETS, partition_key=key, instance=instance, resources=_resources(str(home_dir), configured))
        assert result.success
        return result.asset_materializations_for_node("imported_memories")[0].metadata["sources"].value

    sources = run()
    assert [(s["source"].split(":")[0], s["loaded"]) for s in sources] == [("jsonl", 1), ("tracemem", 1), ("jsonl", 0)]
    assert "does not exist" in sources[2]["error"]
    assert ("mem:tracemem:c1:m1", "RELATES_TO_FILE", f"file:{key}:app/auth.py", 1.0) in memory_edges(home)
    with notes.open("a") as f:  # the agent keeps writing: the next run picks it up
        f.write(json.dumps({"id": "n2", "content": "Validator needs a lock"}) + "\n")
    run()
    assert ("mem:jsonl:n2", "RELATES_TO_CLASS", f"cls:{key}:app/auth.py:Validator", 0.8) in memory_edges(home)


def test_cli_memory_add_prints_both_ids_and_refuses_bad_metadata(ingested):
    from click.testing import CliRunner

    from cli import main

    home, key, _, _ = ingested
    runner = CliRunner()
    res = runner.invoke(main, ["memory", "add", "parse_header must keep the scheme", "--metadata",
                               '{"id": "c1", "memory_type": "procedural"}', "--json", "--home", str(home.root)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["graph_entity_id"] == "mem:online:c1" and out["links"] == 1 and out["in_graph"] is True
    assert memory_edges(home, "mem:online:c1") == {
        ("mem:online:c1", "RELATES_TO_FUNCTION", f"fn:{key}:app/auth.py:parse_header", 0.8)}
    for bad, why in (("[1, 2]", "must be a JSON object"), ("{nope", "not valid JSON"),
                     ('{"memory_type": "dream"}', "not one of")):
        res = runner.invoke(main, ["memory", "add", "x", "--metadata", bad, "--home", str(home.root)])
        assert res.exit_code == 3 and why in res.output and res.output.strip().count("\n") == 0, res.output
