"""In-process runs of the ingest job against a home's Dagster instance (what `ltm ingest` calls).

The core library never imports Dagster; the CLI reaches it only through this module, so a run
started from the terminal is recorded in `<home>/dagster` and shows up in the web UI.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dagster import AssetKey, DagsterInstance, DagsterRunStatus, RunsFilter
from sqlalchemy.exc import DatabaseError

from ltm.home import Home
from pipelines.batch import EXTRACT_JOB, STORES_JOB
from pipelines.definitions import INGEST_JOB, build_definitions
from pipelines.sqlite_sync import quick_commits, release

# A failed step is reported by the CLI as one line (the LtmError); its traceback stays in the run log.
log = logging.getLogger(__name__)
_QUIET_RUN = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
_PID, _HOST, _STARTED = "ltm/pid", "ltm/host", "ltm/process_start"
_UNFINISHED = [DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING, DagsterRunStatus.STARTED]


def _process_start(pid: int) -> str | None:
    """When process `pid` started (to tell a reused pid apart); None if no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except OSError:
        if Path("/proc/self/stat").exists():
            return None
    try:  # no /proc (macOS): the pid alone
        os.kill(pid, 0)
        return ""
    except ProcessLookupError:
        return None
    except PermissionError:
        return ""


def _process_tags() -> dict[str, str]:
    return {_PID: str(os.getpid()), _HOST: socket.gethostname(), _STARTED: _process_start(os.getpid()) or ""}


def home_instance(home: Home) -> DagsterInstance:
    """The home's Dagster instance, its sqlite storage created under the home's `dagster` lock.

    Dagster creates a fresh instance's databases and stamps them with alembic on first use; two
    processes doing that at the same instant (two `ltm` commands on a new home) fail in the
    migration. The lock makes the first one create everything while the second waits, then opens
    what exists. Afterwards the lock is held only for the moment it takes to open the instance.
    """
    with home.lock("dagster", timeout=600):
        try:
            return _open_instance(home)
        except DatabaseError as e:
            release(home.dagster)  # connections kept to the damaged files (`pipelines.sqlite_sync`)
            moved = _set_aside_damaged_storage(home)
            log.warning("the Dagster storage of %s was damaged (%s): set aside as %s; runs before now are no "
                        "longer listed, the lake, graph and vectors are untouched", home.root, e.orig or e,
                        ", ".join(moved))
            return _open_instance(home)


def _open_instance(home: Home) -> DagsterInstance:
    instance = DagsterInstance.from_config(str(home.dagster))
    # touch each storage so its tables exist before the lock is released
    instance.get_runs(limit=1)
    instance.event_log_storage.get_concurrency_keys()
    instance.all_instigator_state()
    return instance


def _set_aside_damaged_storage(home: Home) -> list[str]:
    """Rename the instance's sqlite folders (run history, schedules) so a fresh storage is created;
    nothing else of the home depends on them."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    moved = []
    for name in ("history", "schedules"):
        folder = home.dagster / name
        if folder.exists():
            folder.rename(folder.with_name(f"{name}.damaged-{stamp}"))
            moved.append(f"{name}.damaged-{stamp}")
    return moved


def release_dead_runs(instance: DagsterInstance) -> list[str]:
    """Fail the runs an `ltm ingest` started whose process is gone (kill -9, OOM, power cut).

    Such a run stays STARTED and keeps its slot in the `kuzu`/`lancedb` pools, and every later
    run would wait for that slot forever. Runs of other hosts, and runs launched from the web UI
    (the daemon's run monitoring handles those), are left alone.
    """
    released = []
    for run in instance.get_runs(filters=RunsFilter(statuses=_UNFINISHED)):
        tags = run.tags
        if _PID not in tags or tags.get(_HOST) != socket.gethostname():
            continue
        start = _process_start(int(tags[_PID]))
        if start is not None and start in ("", tags.get(_STARTED, "")):
            continue  # still running
        instance.report_run_failed(run, f"the process that ran it (pid {tags[_PID]}) is gone: it was killed or crashed")
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        released.append(run.run_id)
    return released


@dataclass
class RunSummary:
    """One repository of a batch: its extraction run, the batch's stores run, and the metadata of both
    (by asset name: the extraction's assets and the home-wide ones, graph, vectors, reconciliation...)."""

    run_id: str
    repo: str
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)
    stores_run_id: str = ""


def ingest_partitions(
    home: Home, keys: list[str], embedder: str, on_done: Callable[[RunSummary], None] | None = None,
    commits_config: dict[str, Any] | None = None, bugs_config: dict[str, Any] | None = None,
    on_stage: Callable[[str, str, dict[str, Any]], None] | None = None,
) -> list[RunSummary]:
    """Register `keys` as `repos` partitions, run the `extract` job for each in order, then the
    `stores` job once for the batch (memories, links, graph, vectors, reconciliation). One
    repository alone is one run of the `ingest` job (its extraction and the stores: what the two
    runs would do, without a second run's start and end); its `stores_run_id` is that run's id.

    `commits_config` is the `commits` asset's config (branch, since, max_commits, skip_patterns, full);
    `bugs_config` the `bugs` asset's (issues_path, max_commit_files, max_fix_definitions, full).
    `on_stage(repo, asset, metadata)` is called as each asset is materialized, while the run goes on (the stores run's
    assets name the batch's repositories joined by commas). `on_done` is called for each repository
    once the stores hold it. When one repository's extraction fails, the stores are still built for
    the repositories extracted before it, then that failure is raised.
    The caller holds the home's ingest lock; runs left behind by a killed ingest are failed first.
    Dagster's storage is written without a disk flush per event meanwhile (`pipelines.sqlite_sync`).
    """
    with quick_commits(home.dagster):
        return _ingest_partitions(home, keys, embedder, on_done, commits_config, bugs_config, on_stage)


def _ingest_partitions(
    home: Home, keys: list[str], embedder: str, on_done: Callable[[RunSummary], None] | None,
    commits_config: dict[str, Any] | None, bugs_config: dict[str, Any] | None,
    on_stage: Callable[[str, str, dict[str, Any]], None] | None,
) -> list[RunSummary]:
    instance = home_instance(home)
    release_dead_runs(instance)
    defs = build_definitions(home=str(home.root), embedder=embedder)
    extract, stores = defs.resolve_job_def(EXTRACT_JOB), defs.resolve_job_def(STORES_JOB)
    ops = {name: {"config": cfg} for name, cfg in (("commits", commits_config), ("bugs", bugs_config)) if cfg}
    run_config = {**_QUIET_RUN, **({"ops": ops} if ops else {})}
    if len(keys) == 1:
        [key] = keys
        instance.add_dynamic_partitions("repos", [key])
        run_id, metadata = _execute(defs.resolve_job_def(INGEST_JOB), instance, key, on_stage, run_config=run_config,
                                    partition_key=key)
        summary = RunSummary(run_id, key, metadata, stores_run_id=run_id)
        if on_done:
            on_done(summary)
        return [summary]
    summaries: list[RunSummary] = []
    failure: Exception | None = None
    for key in keys:
        instance.add_dynamic_partitions("repos", [key])
        try:
            run_id, metadata = _execute(extract, instance, key, on_stage, run_config=run_config, partition_key=key)
        except Exception as e:  # noqa: BLE001 - one repository's failure never blocks the others
            log.warning("extracting %s failed; the other repositories go on: %s", key, _reason(e))
            failure = failure or e
            continue
        summaries.append(RunSummary(run_id, key, metadata))
    if summaries:
        try:
            stores_id, stores_meta = _execute(stores, instance, ",".join(s.repo for s in summaries), on_stage,
                                              run_config=_QUIET_RUN)
        except Exception:
            if failure is None:
                raise
            log.warning("the stores run after a failed extraction failed too", exc_info=True)
            raise failure from None
        for summary in summaries:
            summary.metadata.update(stores_meta)
            summary.stores_run_id = stores_id
            if on_done:
                on_done(summary)
    if failure is not None:
        raise failure
    return summaries


def _reason(e: Exception) -> str:
    """The error a step raised (Dagster wraps it), on one line."""
    return " ".join(str(getattr(e, "user_exception", None) or e).split())[:500]


def _execute(job: Any, instance: DagsterInstance, label: str,
             on_stage: Callable[[str, str, dict[str, Any]], None] | None, **kwargs: Any) -> tuple[str, dict[str, Any]]:
    """Run `job` in this process; returns its run id and each materialized asset's metadata."""
    run_id = str(uuid.uuid4())  # known before the run starts, so its events can be followed
    if on_stage is not None:
        instance.add_event_listener(run_id, _stage_listener(label, on_stage))
    result = job.execute_in_process(instance=instance, tags=_process_tags(), run_id=run_id, **kwargs)
    metadata = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization  # type: ignore[union-attr]
        metadata[mat.asset_key.to_user_string()] = {k: v.value for k, v in mat.metadata.items()}
    return result.run_id, metadata


def _stage_listener(key: str, on_stage: Callable[[str, str, dict[str, Any]], None]) -> Callable[[Any], None]:
    """An event-log listener that passes each asset materialization of the run on as it is stored."""

    def listen(record: Any) -> None:
        event = record.get_dagster_event() if record.is_dagster_event else None
        if event is None or not event.is_step_materialization:
            return
        mat = event.event_specific_data.materialization
        on_stage(key, mat.asset_key.to_user_string(), {k: v.value for k, v in mat.metadata.items()})

    return listen


def add_partitions(home: Home, keys: list[str]) -> None:
    """Add `keys` to the `repos` partitions of the home's instance (so the UI lists them)."""
    home_instance(home).add_dynamic_partitions("repos", keys)


def remove_partition(home: Home, key: str) -> None:
    """Delete `key` from the `repos` partitions of the home's instance, if it is there."""
    if (home.dagster / "dagster.yaml").exists():
        instance = home_instance(home)
        if instance.has_dynamic_partition("repos", key):
            instance.delete_dynamic_partition("repos", key)


def backfill_history(
    home: Home, key: str, windows: list[Any], embedder: str, on_window: Callable[[Any, str], None] | None = None
) -> list[str]:
    """Mine one history window per Dagster run (`repository` + `commits` with `until` = window end).

    Each run moves the history cursor to its window's end; a failed run leaves it at the previous
    one, so planning the windows again resumes there. Returns the run ids.
    """
    with quick_commits(home.dagster):
        instance = home_instance(home)
        job = build_definitions(home=str(home.root), embedder=embedder).resolve_job_def(EXTRACT_JOB)
        instance.add_dynamic_partitions("repos", [key])
        run_ids = []
        for w in windows:
            result = job.execute_in_process(
                partition_key=key, instance=instance, asset_selection=[AssetKey("repository"), AssetKey("commits")],
                run_config={**_QUIET_RUN, "ops": {"commits": {"config": {"until": w.end}}}},
                tags={"ltm/backfill_window": str(w.index + 1), "ltm/window_end": w.end},
            )
            run_ids.append(result.run_id)
            if on_window:
                on_window(w, result.run_id)
    return run_ids
