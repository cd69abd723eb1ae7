"""The home-wide stores follow a batch of repositories: built once, after the last extraction.

The extraction (repository, commits, code_entities, bugs, doc_memories, embeddings) is partitioned
by repository; the stores (imported_memories, memory_links, graph, vectors, reconciliation) are the
home's, unpartitioned. What runs them once per batch:

- an asset backfill over N partitions (the asset graph's Materialize, or a sensor's backfill
  request): Dagster runs the extraction per partition, then every unpartitioned asset once;
- a job backfill of `ingest` or `extract` over N partitions (Jobs > Partitions > Launch backfill):
  each run extracts its partition (an `ingest` run skips the stores: `assets.job_backfill`), and
  the sensor below builds the stores once the backfill has ended;
- `stores_after_extraction`, a sensor (running by default: it only follows extraction that
  someone started) that requests one `stores` run when the lake holds extraction newer than the
  last graph build and no extraction or stores run, no backfill and no `ltm` command is under way.
  The nightly schedule and the head-moved sensor launch the `extract` job per repository; this
  sensor then builds the stores once for all of them;
- `ltm ingest A B C` (`pipelines.run.ingest_partitions`): the `extract` job per repository, then
  the `stores` job once, in the same process; `ltm ingest A`: one run of the `ingest` job (below).

The `ingest` job keeps every asset: one partition of it from the UI, outside a backfill, extracts
that repository and builds the stores in the same run (the sensor sees the graph already newer and
does nothing).
"""

from __future__ import annotations

from typing import Any

from dagster import (
    AssetKey,
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SkipReason,
    sensor,
)
from dagster._core.execution.backfill import BulkActionStatus  # no public name in Dagster 1.13

from ltm.errors import LockedError
from ltm.home import Home

STORES_JOB = "stores"
EXTRACT_JOB = "extract"
EXTRACT_KEYS = ["commits", "code_entities", "bugs", "doc_memories", "embeddings"]  # what changes the lake
STORE_KEYS = ["imported_memories", "memory_links", "graph", "vectors", "reconciliation"]
_UNFINISHED = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
               DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]

Job = Any  # a job definition, or an asset job not yet resolved (define_asset_job)


def latest_storage_ids(instance: Any, keys: list[str]) -> dict[str, int]:
    """The event-log id of each asset's latest materialization (any partition); absent if never."""
    records = instance.get_asset_records([AssetKey(k) for k in keys])
    return {r.asset_entry.asset_key.to_user_string(): r.asset_entry.last_materialization_storage_id
            for r in records if r.asset_entry.last_materialization_storage_id is not None}


def busy_runs(instance: Any, job_names: set[str]) -> list[str]:
    """Ids of the unfinished runs that extract a repository or build the stores."""
    watched = {AssetKey(k) for k in (*EXTRACT_KEYS, *STORE_KEYS)}
    return [run.run_id for run in instance.get_runs(filters=RunsFilter(statuses=_UNFINISHED))
            if run.job_name in job_names or (run.asset_selection and run.asset_selection & watched)]


def stores_request(instance: Any, home: Home, job_names: set[str]) -> RunRequest | SkipReason:
    """One `stores` run request when extraction is newer than the graph and nothing is under way."""
    latest = latest_storage_ids(instance, [*EXTRACT_KEYS, "graph"])
    newest = max((latest[k] for k in EXTRACT_KEYS if k in latest), default=None)
    if newest is None:
        return SkipReason("no repository has been extracted yet")
    if latest.get("graph", -1) > newest:
        return SkipReason("the graph is newer than every extraction: nothing to build")
    running = busy_runs(instance, job_names)
    if running:
        return SkipReason(f"waiting for {len(running)} extraction or store runs to end (e.g. {running[0]})")
    backfills = instance.get_backfills(status=BulkActionStatus.REQUESTED)
    if backfills:
        b = backfills[0]  # an asset backfill plans the stores once itself; a job backfill's runs skip them
        after = "it builds the stores itself" if b.is_asset_backfill else "the stores are built once it has ended"
        return SkipReason(f"waiting for backfill {b.backfill_id}: {after}")
    try:
        with home.lock("ingest"):  # an `ltm ingest` or `ltm backfill` builds the stores at its end
            pass
    except LockedError:
        return SkipReason("an ltm command is ingesting into this home: it builds the stores at its end")
    # one request per extraction state: a failed stores run is not launched again until new extraction
    return RunRequest(run_key=f"stores-after-{newest}", tags={"ltm/trigger": "after_extraction"})


def make_stores_sensor(home: str, job: Job, status: DefaultSensorStatus, watched_jobs: set[str]) -> object:
    """The sensor that builds the home-wide stores once after a batch of extraction runs."""

    @sensor(
        name="stores_after_extraction",
        job=job,
        minimum_interval_seconds=30,
        default_status=status,
        description="Builds the home-wide stores (memories, links, graph, vectors, reconciliation) once "
        "after a batch: when some repository's extraction is newer than the last graph build and no "
        "extraction run, backfill or `ltm` command is still going.",
    )
    def stores_after_extraction(context: SensorEvaluationContext) -> RunRequest | SkipReason:
        h = Home.resolve(home or None)
        if not h.root.exists():
            return SkipReason(f"no home at {h.root} yet")
        return stores_request(context.instance, h, watched_jobs)

    return stores_after_extraction
