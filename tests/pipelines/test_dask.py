"""The ingest job, unchanged, on Dagster's Dask executor against a local dask.distributed cluster."""

import os
import signal
import time

import polars as pl
from dagster import execute_job, reconstructable
from dagster._core.test_utils import instance_for_test
from pipelines.dask import dask_executor
from distributed import LocalCluster

from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.home import Home
from ltm.lake import Lake
from ltm.schema import NODE_TABLES, REL_TABLES
from ltm.repos import register_local
from ltm.vectors import VectorStore
from pipelines.definitions import INGEST_JOB, build_definitions
from pipelines.run import ingest_partitions


def dask_ingest_job():
    """The ingest job on the Dask executor; module level so each Dask worker can rebuild it.

    The home comes from $LTM_HOME and the embedder from the home's settings, as in `dagster dev`.
    """
    return build_definitions(executor=dask_executor).resolve_job_def(INGEST_JOB)


def _snapshot(home: Home) -> dict:
    """What a user can see of a home: lake rows, graph nodes and edges, vector rows."""
    lake = Lake(home.lake)
    tables = {}
    for name in [*NODE_TABLES, *REL_TABLES]:
        # linked_at: when a memory was linked, the one wall-clock value in the lake
        df = pl.from_arrow(lake.read(name)).drop("path", "linked_at", strict=False)
        tables[name] = sorted(map(repr, df.rows())) if df.height else []
    with open_current(home.graph) as conn:
        nodes = sorted(r[0] for r in query(conn, "MATCH (n) RETURN n.id"))
        edges = query(conn, "MATCH ()-[r]->() RETURN count(r)")[0][0]
    vectors = VectorStore(home.vectors).links()
    return {"lake": tables, "nodes": nodes, "edges": edges, "vectors": vectors}


def test_ingest_on_dask_equals_an_in_process_run(repo, tmp_path, monkeypatch):
    serial = Home.resolve(tmp_path / "serial").create()
    serial.update_settings(embedder="hash")
    key = register_local(serial, repo.path)
    [summary] = ingest_partitions(serial, [key], "hash")

    distributed = Home.resolve(tmp_path / "dask").create()
    distributed.update_settings(embedder="hash")
    assert register_local(distributed, repo.path) == key
    monkeypatch.setenv("LTM_HOME", str(distributed.root))
    # One worker process running one step at a time: Dagster's steps share process-wide logging
    # state, so two steps must not run as threads of one process. The worker starts with SIGTERM
    # ignored, as it does when this process has SIGTERM ignored (Dagster gives SIGTERM SIGINT's
    # disposition, and a background job of a non-interactive shell, `make test &`, ignores SIGINT).
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    finally:
        signal.signal(signal.SIGTERM, previous)
    with cluster:
        (tmp_path / "dagster").mkdir()
        # Compute logs are captured: each step mirrors them through `tail -F` processes, which Dagster
        # stops with SIGTERM and waits for up to 2 x 30 s.
        with instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
            instance.add_dynamic_partitions("repos", [key])
            started = time.monotonic()
            result = execute_job(
                reconstructable(dask_ingest_job), instance=instance,
                run_config={"execution": {"config": {"cluster": {"existing": {"address": cluster.scheduler_address}}}}},
                tags={"dagster/partition": key},
            )
            seconds = time.monotonic() - started
            assert result.success
            successes = [e for e in result.all_events if e.is_step_success]
            steps = {e.step_key for e in successes}
            assert {e.pid for e in successes} != {os.getpid()}  # the steps ran in the Dask worker
            # no step waited out Dagster's 30 s timeout for a `tail` that ignored SIGTERM
            assert seconds < 30 * len(steps)
    job_steps = {node.name for node in build_definitions().resolve_job_def(INGEST_JOB).nodes}
    assert steps == job_steps
    assert {"repository", "commits", "code_entities", "embeddings", "graph", "vectors", "reconciliation"} <= steps

    a, b = _snapshot(serial), _snapshot(distributed)
    assert a["lake"]["Function"] and a["lake"]["Commit"]
    differing = [t for t in a["lake"] if a["lake"][t] != b["lake"][t]]
    assert differing == []
    assert b == a
    assert len(b["nodes"]) == summary.metadata["graph"]["node_total"]
