"""Maintenance: LanceDB compaction with a safe retention, old graph builds removed, index coverage."""

import os
from datetime import timedelta

import pytest
from dagster import materialize

from assets import MAINTENANCE_ASSETS
from ltm.errors import LtmError
from ltm.graph.build import build_graph, builds_dir, current_build
from ltm.home import Home
from ltm.lake import Lake
from ltm.maintenance import run_maintenance
from ltm.repos import register_local
from pipelines.run import ingest_partitions
from resources import HomeResource


@pytest.fixture
def ingested(repo, home_dir) -> Home:
    home = Home.resolve(home_dir).create()
    home.update_settings(embedder="hash")
    ingest_partitions(home, [register_local(home, repo.path)], "hash")
    return home


def test_old_builds_go_current_stays_and_indexes_cover_every_row(ingested):
    for _ in range(3):
        build_graph(ingested.graph, Lake(ingested.lake), retention=10, reuse=False)
    assert len(list(builds_dir(ingested.graph).glob("*.kuzu"))) == 4
    current = current_build(ingested.graph)
    report = run_maintenance(ingested, timedelta(hours=1), graph_retention=1)
    assert len(report.builds_removed) == 3 and report.builds_kept == 1
    assert current_build(ingested.graph) == current and current.exists()
    assert report.vector_rows == 14  # 2 commits, 6 functions, 2 classes, 3 modules, the README heading
    assert report.missing_indexes == []
    assert set(report.index_coverage) == {"vector_id_idx", "graph_entity_id_idx", "repo_idx", "content_idx"}
    assert all(c == {"indexed": 14, "unindexed": 0} for c in report.index_coverage.values())
    assert report.indexes_complete and report.versions_after <= report.versions_before


def test_unsafe_retention_is_refused_before_anything_is_touched(ingested):
    before = sorted(p.name for p in builds_dir(ingested.graph).iterdir())
    with pytest.raises(LtmError, match="safe minimum"):
        run_maintenance(ingested, timedelta(minutes=5), graph_retention=1)
    with pytest.raises(LtmError, match="at least the current build"):
        run_maintenance(ingested, timedelta(hours=2), graph_retention=0)
    assert sorted(p.name for p in builds_dir(ingested.graph).iterdir()) == before


def test_maintenance_asset_reports_and_checks_coverage(ingested):
    result = materialize(MAINTENANCE_ASSETS, resources={"home": HomeResource(path=str(ingested.root))},
                         run_config={"ops": {"maintenance": {"config": {"graph_retention": 1}}}})
    assert result.success
    [check] = result.get_asset_check_evaluations()
    assert check.check_name == "index_coverage" and check.passed
    meta = result.asset_materializations_for_node("maintenance")[0].metadata
    assert meta["vector_rows"].value == 14 and meta["builds_kept"].value == 1


def test_table_left_by_a_model_switch_goes_once_the_switch_is_past_retention(ingested):
    from ltm.embed.hashing import HashEmbedder
    from ltm.embed.switch import reembed_home
    from ltm.vectors import VectorStore

    store = VectorStore(ingested.vectors)
    old = store.table_name
    switched = reembed_home(ingested, HashEmbedder(32))
    assert switched.switched and switched.table != old
    assert set(store._db.list_tables().tables) == {old, switched.table}

    # Right after the switch a reader may still hold the old table: it stays.
    assert run_maintenance(ingested, timedelta(hours=1), graph_retention=1).tables_dropped == []
    assert old in store._db.list_tables().tables

    two_hours_ago = store._meta_path.stat().st_mtime - 7200
    os.utime(store._meta_path, (two_hours_ago, two_hours_ago))
    for f in (ingested.vectors / f"{old}.lance").rglob("*"):
        os.utime(f, (two_hours_ago - 60, two_hours_ago - 60))
    report = run_maintenance(ingested, timedelta(hours=1), graph_retention=1)
    assert report.tables_dropped == [old]
    assert store._db.list_tables().tables == [switched.table]
    assert report.vector_rows == 14 and report.indexes_complete  # the current table is untouched
