import subprocess
import sys
from pathlib import Path

from dagster import AssetKey

from pipelines.definitions import INGEST_JOB, defs

ROOT = Path(__file__).resolve().parents[1]


def test_definitions_load_with_every_stage_described_and_owned():
    repo = defs.get_repository_def()
    keys = {k.to_user_string() for k in repo.asset_graph.get_all_asset_keys()}
    assert keys >= {"repository", "commits", "code_entities", "bugs", "embeddings", "graph", "vectors",
                    "reconciliation", "doc_memories", "imported_memories", "memory_links", "maintenance"}
    for key in keys:
        node = repo.asset_graph.get(AssetKey(key))
        assert node.description, key
        assert node.owners, key
        assert node.kinds, key
        if key in ("imported_memories", "memory_links", "graph", "vectors", "reconciliation", "maintenance"):  # whole-home assets
            assert node.partitions_def is None, key
            continue
        assert node.partitions_def is not None and node.partitions_def.name == "repos"
    checks = {k.name for k in repo.asset_graph.asset_check_keys}
    assert checks == {"graph_nodes_have_vector_rows", "vector_rows_have_graph_nodes", "index_coverage"}
    for check in repo.asset_graph.asset_check_keys:
        assert repo.asset_graph.get(check).description, check
    assert defs.resolve_job_def(INGEST_JOB).partitions_def.name == "repos"
    assert repo.asset_graph.get(AssetKey("graph")).pools == {"kuzu"}
    assert {s.name for s in defs.sensors} == {"repos_yaml_sensor", "head_moved_sensor", "run_failure_webhook",
                                              "stores_after_extraction"}
    # a batch extracts per repository, then builds the home's stores once
    assert defs.resolve_job_def("extract").partitions_def.name == "repos"
    assert defs.resolve_job_def("stores").partitions_def is None
    extract_keys = {k.to_user_string() for k in defs.resolve_job_def("extract").asset_layer.executable_asset_keys}
    assert "graph" not in extract_keys and "embeddings" in extract_keys
    assert {s.job_name for s in defs.schedules if s.name == "nightly_ingest"} == {"extract"}
    # the network-bound steps retry; the stores say how fresh they must be
    retries = {k for k in keys if defs.resolve_assets_def(AssetKey(k)).op.retry_policy}
    assert retries == {"repository", "embeddings"}
    fresh = {k for k in keys if repo.asset_graph.get(AssetKey(k)).freshness_policy}
    assert fresh == {"graph", "vectors"}
    assert {s.name for s in defs.schedules} == {"nightly_ingest", "weekly_maintenance"}
    assert "maintenance" not in {k.to_user_string() for k in defs.resolve_job_def(INGEST_JOB).asset_layer.executable_asset_keys}


def test_dagster_validates_the_workspace(tmp_path):
    res = subprocess.run(
        [str(Path(sys.executable).with_name("dagster")), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT, capture_output=True, text=True, env={"DAGSTER_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert res.returncode == 0, res.stderr[-2000:]


def test_a_home_instance_retries_crashed_runs_and_watches_running_ones(tmp_path):
    from ltm.home import Home
    from pipelines.run import home_instance

    instance = home_instance(Home.resolve(tmp_path / "home").create())
    assert instance.run_retries_enabled and instance.run_retries_max_retries == 2
    assert not instance.run_retries_retry_on_asset_or_op_failure  # failed steps have their own retry policies
    assert instance.run_monitoring_enabled and instance.run_monitoring_max_runtime_seconds == 12 * 3600
    assert instance.get_settings("freshness") == {"enabled": True}
    assert (ROOT / "dagster.yaml").read_text() == (ROOT / "ltm" / "dagster_instance.yaml").read_text()
