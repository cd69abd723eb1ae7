"""Runs and backfills launched the way the web UI launches them, against `ltm ui` on a real home.

`ltm ui` is `dg dev`: the webserver, the daemon (run queue, backfills) and a code server,
with the home's own `dagster.yaml` (QueuedRunCoordinator, pools `kuzu` / `lancedb` of one slot).
The test talks to the webserver's GraphQL API, as the UI's buttons do, and each run uses the
job's real default executor (multiprocess, steps forked from a warm server).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from dagster import AssetKey, DagsterEventType, DagsterInstance, DagsterRunStatus, RunsFilter
from dagster_graphql import DagsterGraphQLClient
from dagster_graphql.client.query import LAUNCH_PARTITION_BACKFILL_MUTATION

from cli import main
from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.home import Home
from ltm.repos import add_repository
from pipelines.run import add_partitions
from tests.builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[2]
LOCATION, REPOSITORY = "pipelines.definitions:defs", "__repository__"  # `dg dev -m ... -a defs`
QUEUE_PAIR, BACKFILL = ["left", "right"], ["red", "green", "blue"]
WORKSPACE = "{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus " \
            "locationOrLoadError { __typename } } } } }"
INGEST_ASSETS = ["repository", "commits", "code_entities", "embeddings", "graph", "vectors", "reconciliation"]
HOLDER = "test-holds-the-kuzu-slot"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(what: str, done, log: Path, timeout: float = 480, every: float = 1.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = done()
        if value:
            return value
        time.sleep(every)
    pytest.fail(f"timed out after {timeout}s waiting for {what}; ltm ui log:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    """A home with five registered repositories and `ltm ui` serving it on a free port."""
    tmp = tmp_path_factory.mktemp("ui")
    home = Home.resolve(tmp / "home").create()
    home.update_settings(embedder="hash")
    keys = []
    for name in QUEUE_PAIR + BACKFILL:
        b = RepoBuilder(tmp / name)
        b.write(f"{name}.py", f"def fn_{name}():\n    return 1\n").commit(f"Add fn_{name}")
        keys.append(add_repository(home, str(b.path)))
    add_partitions(home, keys)
    port, log = _free_port(), tmp / "ltm-ui.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(  # its own session, so every process `dg dev` starts is stopped with it
            [sys.executable, "-m", "cli", "ui", "--home", str(home.root), "--port", str(port)],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def answers() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"ltm ui exited with {proc.returncode}: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        _wait("the webserver", answers, log, timeout=300)
        client = DagsterGraphQLClient("127.0.0.1", port_number=port)

        def loaded() -> bool:
            entries = client._execute(WORKSPACE)["workspaceOrError"]["locationEntries"]
            return any(e["name"] == LOCATION and e["loadStatus"] == "LOADED"
                       and e["locationOrLoadError"]["__typename"] == "RepositoryLocation" for e in entries)

        _wait("the code location", loaded, log, timeout=300)
        yield home, DagsterInstance.from_config(str(home.dagster)), client, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_ui_starts_without_warnings_about_its_own_launch(ui):
    """`ltm ui` runs `dg dev` (`dagster dev` would tell the user to use `dg dev`), without a warning about a
    dagster.yaml; the home's instance config turns on run monitoring and freshness evaluation."""
    text = ui[3].read_text()
    assert "Serving dagster-webserver" in text
    assert "'MonitoringDaemon'" in text and "'FreshnessDaemon'" in text
    assert "/asset-groups?expanded=" in text
    assert "superseded" not in text and "dagster.yaml" not in text, text[-3000:]


def _finished(instance: DagsterInstance, run_ids: list[str]):
    runs = [instance.get_run_by_id(r) for r in run_ids]
    return runs if all(r.is_finished for r in runs) else None


def _graph_step_window(instance: DagsterInstance, run_id: str) -> tuple[float, float]:
    events = {
        e.dagster_event_type: e.timestamp
        for e in instance.all_logs(run_id, of_type={DagsterEventType.STEP_START, DagsterEventType.STEP_SUCCESS})
        if e.step_key == "graph"
    }
    return events[DagsterEventType.STEP_START], events[DagsterEventType.STEP_SUCCESS]


def _blocked_on_kuzu(instance: DagsterInstance, run_id: str) -> bool:
    return any(
        e.step_key == "graph" and "blocked by limit for pool kuzu" in e.dagster_event.message
        for e in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT)
    )


def test_two_runs_launched_at_once_queue_and_take_turns_for_the_graph_build(ui):
    home, instance, client, log = ui
    storage = instance.event_log_storage
    storage.initialize_concurrency_limit_to_default("kuzu")
    assert storage.get_concurrency_info("kuzu").slot_count == 1  # from the home's dagster.yaml
    # hold the one `kuzu` slot until both runs are waiting for it, so they want it at the same time
    assert storage.claim_concurrency_slot("kuzu", HOLDER, "hold").is_claimed
    try:
        run_ids = [  # the UI's "Materialize" on one partition: launchPipelineExecution into the run queue
            client.submit_job_execution("ingest", LOCATION, REPOSITORY, tags={"dagster/partition": key})
            for key in QUEUE_PAIR
        ]
        assert {instance.get_run_by_id(r).status for r in run_ids} <= {
            DagsterRunStatus.QUEUED, DagsterRunStatus.STARTING, DagsterRunStatus.STARTED,
        }
        waiting = lambda: {s.run_id for s in storage.get_concurrency_info("kuzu").pending_steps} >= set(run_ids)
        _wait("both graph builds to wait for the kuzu slot", waiting, log)
    finally:
        storage.free_concurrency_slots_for_run(HOLDER)
    runs = _wait("both runs to finish", lambda: _finished(instance, run_ids), log)
    assert [r.status for r in runs] == [DagsterRunStatus.SUCCESS] * 2
    assert all(_blocked_on_kuzu(instance, r) for r in run_ids)
    first, second = sorted(_graph_step_window(instance, r) for r in run_ids)
    assert first[1] <= second[0]  # one graph build after the other, never both at once

    cli = CliRunner()
    report = json.loads(cli.invoke(main, ["reconcile", "--json", "--home", str(home.root)]).output)
    assert report["ok"] is True
    with open_current(home.graph) as conn:
        names = {r[0] for r in query(conn, "MATCH (f:Function) RETURN f.name")}
    assert {"fn_left", "fn_right"} <= names


def test_asset_backfill_launched_like_the_ui_extracts_every_repository_then_builds_the_graph_once(ui):
    home, instance, client, log = ui
    params = {  # the asset graph's Materialize over several `repos` partitions: an asset backfill
        "assetSelection": [{"path": [key]} for key in INGEST_ASSETS],
        "partitionNames": BACKFILL,
    }
    answer = client._execute(LAUNCH_PARTITION_BACKFILL_MUTATION, {"backfillParams": params})["launchPartitionBackfill"]
    assert answer["__typename"] == "LaunchBackfillSuccess", answer
    backfill_id = answer["backfillId"]
    done = _wait("the backfill to be completed", lambda: instance.get_backfill(backfill_id).status.value
                 in ("COMPLETED", "COMPLETED_SUCCESS", "FAILED", "COMPLETED_FAILED"), log, timeout=540, every=2)
    assert done and instance.get_backfill(backfill_id).status.value in ("COMPLETED", "COMPLETED_SUCCESS")
    runs = instance.get_runs(filters=RunsFilter(tags={"dagster/backfill": backfill_id}))
    assert all(r.status == DagsterRunStatus.SUCCESS for r in runs), [(r.tags, r.status) for r in runs]
    assert sorted(r.tags["dagster/partition"] for r in runs if "dagster/partition" in r.tags) == sorted(BACKFILL)
    for asset in INGEST_ASSETS[:4]:
        assert set(BACKFILL) <= instance.get_materialized_partitions(AssetKey(asset)), asset
    ids = {r.run_id for r in runs}
    builds = [r for r in instance.fetch_materializations(AssetKey("graph"), limit=100).records if r.run_id in ids]
    assert len(builds) == 1  # the home's graph built once, after the three repositories' extraction
    with open_current(home.graph) as conn:
        names = {r[0] for r in query(conn, "MATCH (f:Function) RETURN f.name")}
    assert {"fn_red", "fn_green", "fn_blue"} <= names
    report = json.loads(CliRunner().invoke(main, ["reconcile", "--json", "--home", str(home.root)]).output)
    assert report["ok"] is True


def test_one_partition_of_the_extraction_materialized_from_the_ui_ends_with_a_queryable_home(ui):
    home, instance, client, log = ui
    key = "solo"
    b = RepoBuilder(home.root.parent / key)
    b.write(f"{key}.py", f"def fn_{key}():\n    return 1\n").commit(f"Add fn_{key}")
    add_repository(home, str(b.path))
    add_partitions(home, [key])
    before = len(instance.fetch_materializations(AssetKey("graph"), limit=100).records)
    run_id = client.submit_job_execution("extract", LOCATION, REPOSITORY, tags={"dagster/partition": key})
    [run] = _wait("the extract run", lambda: _finished(instance, [run_id]), log)
    assert run.status == DagsterRunStatus.SUCCESS
    # nothing more to click: the stores_after_extraction sensor (on by default) builds the stores once
    stores = _wait("the stores run the sensor launches", lambda: [
        r for r in instance.get_runs(filters=RunsFilter(job_name="stores", tags={"ltm/trigger": "after_extraction"}))
        if r.is_finished], log, timeout=300, every=2)
    assert [r.status for r in stores] == [DagsterRunStatus.SUCCESS]
    assert len(instance.fetch_materializations(AssetKey("graph"), limit=100).records) == before + 1
    with open_current(home.graph) as conn:
        names = {r[0] for r in query(conn, "MATCH (f:Function) RETURN f.name")}
    assert f"fn_{key}" in names
    report = json.loads(CliRunner().invoke(main, ["reconcile", "--json", "--home", str(home.root)]).output)
    assert report["ok"] is True
