"""A batch of repositories builds the home's stores once: `ltm ingest A B C`, the extract runs the
nightly schedule launches followed by `stores_after_extraction`, and an asset backfill and a job
backfill of `ingest` driven by Dagster's own backfill daemon logic. One repository's run still ends
with a queryable home."""

import json
import logging
import time

from click.testing import CliRunner
from dagster import AssetKey, DagsterRunStatus, RunRequest, SkipReason, build_sensor_context

from cli.app import main
from ltm.home import Home
from ltm.query import HybridLTM
from ltm.repos import register_local
from pipelines.definitions import INGEST_JOB, build_definitions
from pipelines.run import home_instance
from tests.builder import RepoBuilder

NAMES = ("alpha", "beta", "gamma")


def _repo(root, name: str) -> RepoBuilder:
    b = RepoBuilder(root / name)
    b.write("README.md", f"# {name}\n").write(f"{name}/route.py", f"def {name}_parcel_route(stops):\n    return sorted(stops)\n")
    b.commit(f"Add the {name} parcel route")
    return b


def _home(tmp_path) -> Home:
    home = Home.resolve(tmp_path / "home").create()
    home.update_settings(embedder="hash")
    return home


def _finds_function(home: Home, name: str) -> bool:
    with HybridLTM(home) as memory:
        hits = memory.query(f"{name}_parcel_route", top_k=5, filters={"repo": name})
    return any(f"{name}_parcel_route" in (h.get("name") or "") for h in hits)


def _graph_builds(instance) -> list:
    return instance.fetch_materializations(AssetKey("graph"), limit=100).records


def test_ltm_ingest_of_three_repositories_builds_the_graph_once(tmp_path):
    paths = [str(_repo(tmp_path, n).path) for n in NAMES]
    home = tmp_path / "home"
    res = CliRunner().invoke(main, ["ingest", *paths, "--embedder", "hash", "--home", str(home), "--json"])
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    assert sorted(e["repo"] for e in events if e["event"] == "done") == sorted(NAMES)
    graph_stages = [e for e in events if e["event"] == "stage" and e["stage"] == "graph"]
    assert len(graph_stages) == 1 and graph_stages[0]["repo"] == ",".join(NAMES)
    assert sum(e["stage"] == "commits" for e in events if e["event"] == "stage") == 3

    instance = home_instance(Home.resolve(home))
    runs = instance.get_runs()
    extract = [r for r in runs if r.job_name == "extract"]
    stores = [r for r in runs if r.job_name == "stores"]
    assert sorted(r.tags["dagster/partition"] for r in extract) == sorted(NAMES)
    assert len(stores) == 1 and all(r.status == DagsterRunStatus.SUCCESS for r in runs)
    [build] = _graph_builds(instance)  # one graph build for the three repositories
    assert build.run_id == stores[0].run_id
    assert all(_finds_function(Home.resolve(home), n) for n in NAMES)


def test_a_repository_that_fails_does_not_keep_the_others_of_the_batch_out(tmp_path):
    broken = _repo(tmp_path, "alpha")
    broken.write("alpha/route.py", "def alpha_parcel_route(stops):\n    return stops\n").commit("Keep the order")
    parent = broken.git("rev-parse", "HEAD~1")  # a commit object lost: `git log` cannot walk the history
    (broken.path / ".git" / "objects" / parent[:2] / parent[2:]).unlink()
    paths = [str(broken.path), str(_repo(tmp_path, "beta").path), str(_repo(tmp_path, "gamma").path)]
    home = tmp_path / "home"
    res = CliRunner().invoke(main, ["ingest", *paths, "--embedder", "hash", "--home", str(home), "--json"])
    assert res.exit_code != 0
    events = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    assert sorted(e["repo"] for e in events if e.get("event") == "done") == ["beta", "gamma"]
    assert parent in events[-1]["error"]  # the failure names what git could not read
    assert _finds_function(Home.resolve(home), "beta") and _finds_function(Home.resolve(home), "gamma")


def test_extract_runs_are_followed_by_one_stores_run_and_one_repository_run_ends_queryable(tmp_path):
    home = _home(tmp_path)
    keys = [register_local(home, _repo(tmp_path, n).path) for n in NAMES]
    defs = build_definitions(home=str(home.root), embedder="hash")
    sensor = next(s for s in defs.sensors if s.name == "stores_after_extraction")
    instance = home_instance(home)
    instance.add_dynamic_partitions("repos", keys)

    def tick():
        return sensor(build_sensor_context(instance=instance))

    assert isinstance(tick(), SkipReason)  # nothing extracted yet
    extract = defs.resolve_job_def("extract")
    for key in keys:  # what the nightly schedule launches: one extract run per repository
        assert extract.execute_in_process(partition_key=key, instance=instance).success
    waiting = instance.create_run_for_job(job_def=extract, tags={"dagster/partition": keys[0]})
    assert "waiting for 1" in tick().skip_message  # a run of the batch is still going
    instance.report_run_failed(waiting)
    with home.lock("ingest"):
        assert "ltm command" in tick().skip_message
    request = tick()
    assert isinstance(request, RunRequest) and request.run_key
    assert _graph_builds(instance) == []
    # the daemon launches the request: one run of the stores job, for the three repositories
    stores = defs.resolve_job_def("stores")
    assert stores.execute_in_process(instance=instance, tags=request.tags).success
    assert len(_graph_builds(instance)) == 1
    assert all(_finds_function(home, n) for n in NAMES)
    assert "graph is newer" in tick().skip_message

    # one repository from the UI: the ingest job for its partition ends with a queryable home
    delta = _repo(tmp_path, "delta")
    key = register_local(home, delta.path)
    instance.add_dynamic_partitions("repos", [key])
    ingest = defs.resolve_job_def(INGEST_JOB)
    assert ingest.execute_in_process(partition_key=key, instance=instance).success
    assert _finds_function(home, "delta")
    assert "graph is newer" in tick().skip_message  # that run built the stores: nothing more to launch
    assert len(_graph_builds(instance)) == 2


def _run_backfill(workspace, instance, backfill):
    """Add `backfill` and do what the daemon does every few seconds until it is no longer requested."""
    from dagster._core.execution.backfill import BulkActionStatus
    from dagster._daemon.backfill import execute_backfill_iteration

    instance.add_backfill(backfill)
    for _ in range(12):
        errors = [e for e in execute_backfill_iteration(workspace, logging.getLogger("backfill")) if e]
        assert errors == []
        if instance.get_backfill(backfill.backfill_id).status != BulkActionStatus.REQUESTED:
            break
    return instance.get_backfill(backfill.backfill_id)


def test_an_asset_backfill_over_three_repositories_builds_the_graph_once(tmp_path, monkeypatch):
    from dagster._core.execution.backfill import BulkActionStatus, PartitionBackfill
    from dagster._core.test_utils import create_test_daemon_workspace_context, instance_for_test
    from dagster._core.workspace.load_target import ModuleTarget

    from assets import ALL_ASSETS

    home = _home(tmp_path)
    keys = [register_local(home, _repo(tmp_path, n).path) for n in NAMES]
    monkeypatch.setenv("LTM_HOME", str(home.root))  # what `ltm ui` gives the code location
    (tmp_path / "dagster").mkdir()
    # runs launched by the backfill execute at once, in this process
    with instance_for_test(synchronous_run_launcher=True, synchronous_run_coordinator=True, temp_dir=str(tmp_path / "dagster")) as instance:
        instance.add_dynamic_partitions("repos", keys)
        target = ModuleTarget(module_name="tests.pipelines.backfill_defs", attribute="defs",
                              working_directory=None, location_name="ltm")
        with create_test_daemon_workspace_context(target, instance) as workspace:
            asset_graph = workspace.create_request_context().asset_graph
            backfill = PartitionBackfill.from_asset_partitions(
                backfill_id="three", asset_graph=asset_graph, backfill_timestamp=time.time(), tags={},
                asset_selection=[a.key for a in ALL_ASSETS], partition_names=keys, dynamic_partitions_store=instance,
                all_partitions=False, title=None, description=None, run_config=None,
            )
            assert _run_backfill(workspace, instance, backfill).status == BulkActionStatus.COMPLETED_SUCCESS
        runs = instance.get_runs()
        assert all(r.status == DagsterRunStatus.SUCCESS for r in runs)
        partitioned = [r for r in runs if "dagster/partition" in r.tags]
        assert sorted(r.tags["dagster/partition"] for r in partitioned) == sorted(keys)
        [build] = _graph_builds(instance)  # the graph built once, after the three extractions
        assert build.run_id not in {r.run_id for r in partitioned}
        assert all(_finds_function(home, n) for n in NAMES)


def test_a_job_backfill_of_ingest_over_three_repositories_builds_the_graph_once(tmp_path, monkeypatch):
    from dagster._core.execution.backfill import BulkActionStatus, PartitionBackfill
    from dagster._core.test_utils import create_test_daemon_workspace_context, instance_for_test
    from dagster._core.workspace.load_target import ModuleTarget

    home = _home(tmp_path)
    keys = [register_local(home, _repo(tmp_path, n).path) for n in NAMES]
    monkeypatch.setenv("LTM_HOME", str(home.root))
    (tmp_path / "dagster").mkdir()
    defs = build_definitions(home=str(home.root), embedder="hash")
    sensor = next(s for s in defs.sensors if s.name == "stores_after_extraction")
    with instance_for_test(synchronous_run_launcher=True, synchronous_run_coordinator=True, temp_dir=str(tmp_path / "dagster")) as instance:
        instance.add_dynamic_partitions("repos", keys)

        def tick():
            return sensor(build_sensor_context(instance=instance))

        target = ModuleTarget(module_name="tests.pipelines.backfill_defs", attribute="defs",
                              working_directory=None, location_name="ltm")
        with create_test_daemon_workspace_context(target, instance) as workspace:
            [repo] = workspace.create_request_context().get_code_location("ltm").get_repositories().values()
            # what the UI's Jobs > ingest > Partitions > Launch backfill sends (launchPartitionBackfill)
            backfill = PartitionBackfill(
                backfill_id="ingest3", status=BulkActionStatus.REQUESTED, from_failure=False, tags={},
                backfill_timestamp=time.time(), partition_names=keys,
                partition_set_origin=repo.get_partition_set(f"{INGEST_JOB}_partition_set").get_remote_origin(),
            )
            done = _run_backfill(workspace, instance, backfill)
            assert done.status == BulkActionStatus.COMPLETED_SUCCESS
        runs = instance.get_runs()
        assert sorted(r.tags["dagster/partition"] for r in runs if r.job_name == INGEST_JOB) == sorted(keys)
        assert all(r.status == DagsterRunStatus.SUCCESS for r in runs)
        assert _graph_builds(instance) == []  # the backfill's runs extract; the stores wait for the batch

        # while the backfill is open (its runs may all have ended before the daemon marks it done) the sensor waits
        instance.update_backfill(done.with_status(BulkActionStatus.REQUESTED))
        assert tick().skip_message == "waiting for backfill ingest3: the stores are built once it has ended"
        instance.update_backfill(done)
        # the sensor sees the backfill over and extraction newer than the graph: one stores run
        request = tick()
        assert isinstance(request, RunRequest), request
        stores = defs.resolve_job_def("stores")
        assert stores.execute_in_process(instance=instance, tags=request.tags).success
        [build] = _graph_builds(instance)  # the graph built once, after the three extractions
        assert instance.get_run_by_id(build.run_id).job_name == "stores"
        assert all(_finds_function(home, n) for n in NAMES)
        assert "graph is newer" in tick().skip_message


def test_a_failed_extraction_still_leaves_the_other_repositories_queryable(tmp_path):
    import shutil

    import pytest

    from pipelines.run import ingest_partitions

    home = _home(tmp_path)
    keys = [register_local(home, _repo(tmp_path, n).path) for n in NAMES]
    shutil.rmtree(tmp_path / "beta")  # the second repository is gone before its run
    done = []
    with pytest.raises(Exception) as failed:
        ingest_partitions(home, keys, "hash", on_done=lambda s: done.append(s.repo))
    assert "beta" in str(failed.value)
    assert done == ["alpha", "gamma"]  # the one after it too; each recorded only once the stores hold it
    assert len(_graph_builds(home_instance(home))) == 1
    assert _finds_function(home, "alpha") and _finds_function(home, "gamma")
