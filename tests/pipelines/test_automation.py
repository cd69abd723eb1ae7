"""Sensors, schedules and backfills against a real Dagster instance (`instance_for_test`)."""

import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from dagster import (
    AssetKey, DagsterEventType, DagsterRunStatus, RunRequest, SensorResult, SkipReason, build_schedule_context,
    build_sensor_context,
)
from dagster._core.test_utils import instance_for_test

from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.home import Home
from ltm.repos import add_repository
from pipelines.batch import EXTRACT_JOB, STORES_JOB
from pipelines.definitions import build_definitions
from tests.builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[2]


def small_repo(path: Path, fn: str) -> RepoBuilder:
    b = RepoBuilder(path)
    b.write(f"{fn}.py", f"def {fn}():\n    return 1\n").commit(f"Add {fn}")
    return b


def test_repos_yaml_sensor_adds_the_listed_repositories_as_partitions(tmp_path):
    small_repo(tmp_path / "alpha", "a")
    small_repo(tmp_path / "beta", "b")
    home = Home.resolve(tmp_path / "home").create()
    (home.root / "repos.yaml").write_text(
        "repositories:\n  - ../alpha\n  - path: ../beta\n    name: beta-svc\n  - ../missing\n"
    )
    sensor = build_definitions(home=str(home.root)).resolve_sensor_def("repos_yaml_sensor")
    with instance_for_test() as instance:
        result = sensor(build_sensor_context(instance=instance))
        assert isinstance(result, SensorResult)
        [request] = result.dynamic_partitions_requests
        assert request.partitions_def_name == "repos"
        assert list(request.partition_keys) == ["alpha", "beta-svc"]  # the missing path is skipped
        assert result.run_requests in (None, [])  # adding partitions launches nothing by itself
        assert set(home.registry()) == {"alpha", "beta-svc"}
        instance.add_dynamic_partitions("repos", list(request.partition_keys))  # what the daemon does
        again = sensor(build_sensor_context(instance=instance))
        assert isinstance(again, SkipReason)


def test_head_moved_sensor_requests_one_run_per_new_head(tmp_path):
    alpha = small_repo(tmp_path / "alpha", "a")
    beta = small_repo(tmp_path / "beta", "b")
    home = Home.resolve(tmp_path / "home").create()
    keys = [add_repository(home, str(alpha.path)), add_repository(home, str(beta.path))]
    sensor = build_definitions(home=str(home.root)).resolve_sensor_def("head_moved_sensor")
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("repos", keys)
        first = sensor(build_sensor_context(instance=instance)).run_requests
        assert {(r.partition_key, r.run_key) for r in first} == {
            ("alpha", f"alpha@{alpha.head()}"), ("beta", f"beta@{beta.head()}"),
        }
        same = sensor(build_sensor_context(instance=instance)).run_requests
        assert {r.run_key for r in same} == {r.run_key for r in first}  # same head, same key: never twice
        moved = alpha.write("a2.py", "def a2():\n    return 2\n").commit("Add a2")
        after = {r.partition_key: r.run_key for r in sensor(build_sensor_context(instance=instance)).run_requests}
        assert after == {"alpha": f"alpha@{moved}", "beta": f"beta@{beta.head()}"}


def test_nightly_schedule_requests_one_run_per_repository(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    keys = [add_repository(home, str(small_repo(tmp_path / n, n).path)) for n in ("one", "two", "three")]
    defs = build_definitions(home=str(home.root), nightly_cron="30 1 * * *", timezone="Europe/Berlin")
    nightly = defs.resolve_schedule_def("nightly_ingest")
    assert nightly.cron_schedule == "30 1 * * *" and nightly.execution_timezone == "Europe/Berlin"
    assert nightly.job_name == EXTRACT_JOB  # the stores follow once, by stores_after_extraction
    assert build_definitions(home=str(home.root)).resolve_schedule_def("nightly_ingest").cron_schedule == "0 2 * * *"
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("repos", keys + ["unregistered"])
        when = datetime(2026, 3, 1, 1, 30, tzinfo=timezone.utc)
        requests = nightly(build_schedule_context(instance=instance, scheduled_execution_time=when))
        assert sorted(r.partition_key for r in requests) == ["one", "three", "two"]
        assert len({r.run_key for r in requests}) == 3


def test_job_backfill_of_three_partitions_extracts_each_then_the_sensor_builds_the_stores_once(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    home.update_settings(embedder="hash")
    keys = [add_repository(home, str(small_repo(tmp_path / n, f"fn_{n}").path)) for n in ("red", "green", "blue")]
    overrides = {"concurrency": {"pools": {"default_limit": 1}}}
    (tmp_path / "dagster").mkdir()
    with instance_for_test(overrides, temp_dir=str(tmp_path / "dagster"),
                           synchronous_run_coordinator=True, synchronous_run_launcher=True) as instance:
        instance.add_dynamic_partitions("repos", keys)
        env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "dagster"), "LTM_HOME": str(home.root)}
        res = subprocess.run(
            [str(Path(sys.executable).with_name("dagster")), "job", "backfill", "-m", "pipelines.definitions",
             "-a", "defs", "-j", EXTRACT_JOB, "--partitions", ",".join(keys), "--noprompt"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=560,
        )
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
        runs = instance.get_runs()
        assert sorted(r.tags["dagster/partition"] for r in runs) == sorted(keys)
        assert all(r.status == DagsterRunStatus.SUCCESS for r in runs)
        for r in runs:  # the job's own executor: every step in a process of its own, forked from a warm server
            engine = [e.dagster_event.message or "" for e in instance.all_logs(r.run_id, of_type=DagsterEventType.ENGINE_EVENT)]
            assert any("using multiprocess executor" in m for m in engine), engine[:3]
        for asset in ("repository", "commits", "code_entities", "embeddings"):
            assert instance.get_materialized_partitions(AssetKey(asset)) == set(keys), asset
        # what the sensor daemon does next: one stores run for the three repositories
        defs = build_definitions(home=str(home.root))
        sensor = next(s for s in defs.sensors if s.name == "stores_after_extraction")
        request = sensor(build_sensor_context(instance=instance))
        assert isinstance(request, RunRequest), request
        assert defs.resolve_job_def(STORES_JOB).execute_in_process(instance=instance, tags=request.tags).success
        assert len(instance.fetch_materializations(AssetKey("graph"), limit=10).records) == 1
    with open_current(home.graph) as conn:
        names = sorted(r[0] for r in query(conn, "MATCH (f:Function) RETURN f.name"))
    assert names == ["fn_blue", "fn_green", "fn_red"]


def test_a_hung_remote_does_not_stall_the_head_sensor_tick(tmp_path):
    import socket
    import threading
    import time

    held: list[socket.socket] = []
    server = socket.create_server(("127.0.0.1", 0))  # accepts, never answers: a remote that hangs

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    alpha = small_repo(tmp_path / "alpha", "a")
    home = Home.resolve(tmp_path / "home").create()
    port = server.getsockname()[1]
    hung = [add_repository(home, f"http://127.0.0.1:{port}/team/hung{i}.git", clone=False) for i in range(3)]
    keys = [*hung, add_repository(home, str(alpha.path))]
    sensor = build_definitions(home=str(home.root), head_timeout_s=3).resolve_sensor_def("head_moved_sensor")
    try:
        with instance_for_test() as instance:
            instance.add_dynamic_partitions("repos", keys)
            started = time.monotonic()
            result = sensor(build_sensor_context(instance=instance))
            elapsed = time.monotonic() - started
    finally:
        server.close()
        for s in held:
            s.close()
    # read in parallel: about one timeout (3 s), not three in turn (9 s), nor git's own hour
    assert elapsed < 8, elapsed
    assert len(held) >= 3, "git never reached the hung remotes"
    assert [(r.partition_key, r.run_key) for r in result.run_requests] == [("alpha", f"alpha@{alpha.head()}")]
