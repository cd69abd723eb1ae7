"""The run-failure sensor posts a failed run to a webhook on 127.0.0.1, never logging its secret."""

import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from dagster import DagsterEventType, SensorEvaluationContext, SkipReason, build_run_status_sensor_context
from dagster._core.remote_origin import InProcessCodeLocationOrigin
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._core.test_utils import instance_for_test

from ltm.home import Home
from ltm.repos import register_local
from pipelines.alerts import WEBHOOK_ENV
from pipelines.definitions import INGEST_JOB, build_definitions

SECRET = "T000/B000/s3cr3t-token"
LOCATION = InProcessCodeLocationOrigin(LoadableTargetOrigin(module_name="pipelines.definitions", attribute="defs"),
                                       location_name="pipelines.definitions:defs")


class Hook:
    """A webhook receiver: records each POST's path and JSON body, answers `status`."""

    def __init__(self, status: int = 200):
        self.posts: list[tuple[str, dict]] = []
        self.status = status
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                hook.posts.append((self.path, body))
                self.send_response(hook.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/services/{SECRET}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook():
    h = Hook()
    yield h
    h.close()


def _failed_run(repo, tmp_path):
    """A real ingest run that fails: its repository was deleted after it was registered."""
    home = Home.resolve(tmp_path / "home").create()
    key = register_local(home, repo.path)
    shutil.rmtree(repo.path)
    defs = build_definitions(home=str(home.root), embedder="hash")
    return defs, key


def _context(defs, instance, result):
    [failure] = [e for e in result.all_events if e.event_type == DagsterEventType.RUN_FAILURE]
    return build_run_status_sensor_context(
        sensor_name="run_failure_webhook", dagster_event=failure, dagster_instance=instance,
        dagster_run=instance.get_run_by_id(result.run_id), repository_def=defs.get_repository_def(),
    ).for_run_failure()


def test_a_failed_run_is_posted_with_its_error_and_the_secret_is_never_logged(repo, tmp_path, hook, monkeypatch,
                                                                                capfd):
    monkeypatch.setenv(WEBHOOK_ENV, hook.url)
    defs, key = _failed_run(repo, tmp_path)
    sensor = defs.resolve_sensor_def("run_failure_webhook")
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("repos", [key])
        result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
            partition_key=key, instance=instance, raise_on_error=False)
        assert not result.success
        capfd.readouterr()
        sensor(_context(defs, instance, result))
        logged = "".join(capfd.readouterr())  # the sensor's log lines (Dagster writes them to stderr)
    [(path, body)] = hook.posts
    assert path == f"/services/{SECRET}"
    assert body["run_id"] == result.run_id and body["job"] == INGEST_JOB and body["partition"] == key
    assert "step repository" in body["error"] and str(repo.path) in body["error"]
    assert result.run_id[:8] in body["text"] and "failed" in body["text"]
    assert "posted to http://127.0.0.1" in logged
    assert "s3cr3t" not in logged


def test_without_the_variable_the_sensor_skips(repo, tmp_path, monkeypatch):
    monkeypatch.delenv(WEBHOOK_ENV, raising=False)
    defs, key = _failed_run(repo, tmp_path)
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("repos", [key])
        result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
            partition_key=key, instance=instance, raise_on_error=False)
        out = defs.resolve_sensor_def("run_failure_webhook")(_context(defs, instance, result))
    assert isinstance(out, SkipReason) and WEBHOOK_ENV in out.skip_message


def test_a_refusing_webhook_is_an_error_that_names_only_its_host(repo, tmp_path, monkeypatch):
    hook = Hook(status=500)
    try:
        monkeypatch.setenv(WEBHOOK_ENV, hook.url)
        defs, key = _failed_run(repo, tmp_path)
        with instance_for_test() as instance:
            instance.add_dynamic_partitions("repos", [key])
            result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
                partition_key=key, instance=instance, raise_on_error=False)
            with pytest.raises(Exception) as raised:
                defs.resolve_sensor_def("run_failure_webhook")(_context(defs, instance, result))
    finally:
        hook.close()
    message = str(raised.value)
    assert "HTTP 500" in message and "127.0.0.1" in message and WEBHOOK_ENV in message
    assert "s3cr3t" not in message and len(hook.posts) == 1


def test_the_sensor_tick_posts_a_failed_in_process_run_once(repo, tmp_path, hook, monkeypatch):
    """What the daemon does: ticks over the instance's event log. A run made in-process (as `ltm
    ingest` makes them, with no code location) is posted once; the next tick posts nothing again."""
    monkeypatch.setenv(WEBHOOK_ENV, hook.url)
    defs, key = _failed_run(repo, tmp_path)
    sensor = defs.resolve_sensor_def("run_failure_webhook")
    assert sensor.default_status.name == "RUNNING"  # the variable is set: it needs no switching on
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("repos", [key])

        def tick(cursor):  # as the daemon builds it: the sensor lives in a code location
            return sensor.evaluate_tick(SensorEvaluationContext(
                instance_ref=None, last_tick_completion_time=None, last_run_key=None, cursor=cursor,
                repository_name="__repository__", repository_def=defs.get_repository_def(), instance=instance,
                sensor_name=sensor.name, code_location_origin=LOCATION))

        first = tick(None)  # starts from now
        result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
            partition_key=key, instance=instance, raise_on_error=False)
        second = tick(first.cursor)
        tick(second.cursor)
    assert [body["run_id"] for _, body in hook.posts] == [result.run_id]
