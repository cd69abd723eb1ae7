"""A Dagster run after one repository's new commit amends the home's graph instead of rebuilding it,
and what it leaves equals a full build of the same lake."""

import json

from click.testing import CliRunner

from cli import main
from ltm.graph.build import build_graph, current_build
from ltm.lake import Lake
from tests.builder import sample_repo
from tests.graph.test_amend import dump


def run(*args):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


def graph_materializations(home):
    from dagster import AssetKey, DagsterInstance

    instance = DagsterInstance.from_config(str(home / "dagster"))
    records = instance.fetch_materializations(AssetKey("graph"), limit=100).records
    return [{k: getattr(v, "value", v) for k, v in r.asset_materialization.metadata.items()} for r in reversed(records)]


def test_one_repositorys_new_commit_amends_the_graph_in_a_dagster_run(repo, home_dir, tmp_path):
    other = sample_repo(tmp_path / "other")
    run("ingest", repo.path, other.path, "--home", home_dir, "--embedder", "hash")
    other.write("app/later.py", "def compute_checksum_later(data):\n    return len(data)\n").commit("Add later")
    run("ingest", other.path, "--home", home_dir)

    first, second = graph_materializations(home_dir)
    assert first["mode"] == "full"
    assert second["mode"] == "amend" and second["changed_partitions"] == ["other"]
    assert "amended: other" in second["summary"]
    full = tmp_path / "full-graph"
    stats = build_graph(full, Lake(home_dir / "lake"), amend=False)
    assert dump(current_build(home_dir / "graph")) == dump(current_build(full))
    assert second["nodes"] == stats.nodes and second["rels"] == stats.rels

    # what a user asks of the amended build: the new function, and the stores agreeing
    hits = json.loads(run("query", "compute checksum later", "--json", "--home", home_dir).output)
    assert "fn:other:app/later.py:compute_checksum_later" in [h["graph_entity_id"] for h in hits]
    assert json.loads(run("reconcile", "--json", "--home", home_dir).output)["ok"] is True
