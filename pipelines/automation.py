"""Sensors and schedules: what runs the pipeline every night on dozens of repositories.

- `repos_yaml_sensor` registers what `<home>/repos.yaml` lists and adds it to the `repos`
  partitions (it launches nothing itself);
- `head_moved_sensor` requests an extract run for a repository whose branch head moved, with
  run_key `<repo>@<sha>`, so Dagster never runs the same head twice; heads are read in parallel,
  each given up after `head_timeout_s` (a hung remote is logged and skipped, the others run);
- `nightly_ingest` requests one incremental run per registered repository (cron and time zone
  from `build_definitions`, by default `$LTM_NIGHTLY_CRON` / `$LTM_TIMEZONE`, else 02:00 UTC);
  both target the `extract` job: `stores_after_extraction` (`pipelines.batch`) then builds the
  home's graph, vectors and reconciliation once for the whole batch;
- `weekly_maintenance` materializes the `maintenance` asset.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from dagster import (
    DefaultScheduleStatus,
    DefaultSensorStatus,
    RunRequest,
    ScheduleEvaluationContext,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    schedule,
    sensor,
)

from assets.partitions import repos_partitions
from ltm.errors import LtmError
from ltm.home import Home
from ltm.repos import add_repository, current_head, read_repos_yaml

REPOS_YAML = "repos.yaml"
NIGHTLY_CRON = "0 2 * * *"
MAINTENANCE_CRON = "0 4 * * 0"
HEAD_TIMEOUT_S = 20.0
HEAD_WORKERS = 8

Job = Any  # a job definition, or an asset job not yet resolved (define_asset_job)


def _home(home: str) -> Home:
    return Home.resolve(home or None)


def _registered_partitions(context: SensorEvaluationContext | ScheduleEvaluationContext, h: Home) -> list[str]:
    """Partition keys that are also in the home's registry (what a run can actually mine)."""
    registry = h.registry()
    return [k for k in context.instance.get_dynamic_partitions(repos_partitions.name) if k in registry]


def make_repos_yaml_sensor(home: str, status: DefaultSensorStatus) -> object:
    """A sensor that adds the repositories listed in `<home>/repos.yaml` as `repos` partitions."""

    @sensor(
        name="repos_yaml_sensor",
        minimum_interval_seconds=60,
        default_status=status,
        description="Registers the repositories listed in <home>/repos.yaml (paths or URLs) and adds them "
        "to the `repos` partitions; the head-moved sensor then launches their first run.",
    )
    def repos_yaml_sensor(context: SensorEvaluationContext) -> SensorResult | SkipReason:
        h = _home(home)
        path = h.root / REPOS_YAML
        entries = read_repos_yaml(path)
        if not entries:
            return SkipReason(f"{path} lists no repositories")
        h.create()
        known = set(context.instance.get_dynamic_partitions(repos_partitions.name))
        new: list[str] = []
        for entry in entries:
            try:
                key = add_repository(h, entry["source"], entry["name"], clone=False)
            except LtmError as e:  # one bad entry must not hide the others
                context.log.warning(f"skipped {entry['source']!r} from {path}: {e}")
                continue
            if key not in known and key not in new:
                new.append(key)
        if not new:
            return SkipReason("every repository in repos.yaml is already a partition")
        return SensorResult(dynamic_partitions_requests=[repos_partitions.build_add_request(new)])

    return repos_yaml_sensor


def read_heads(h: Home, keys: list[str], timeout_s: float) -> tuple[dict[str, str], dict[str, str]]:
    """Heads of the repositories `keys`, read at once by up to HEAD_WORKERS threads.

    Returns (key -> sha, key -> why not). Each read is given `timeout_s` (git is killed then); the
    whole call returns after about `timeout_s` even where git does not die, leaving that thread behind.
    """
    heads: dict[str, str] = {}
    failed: dict[str, str] = {}
    if not keys:
        return heads, failed
    pool = ThreadPoolExecutor(max_workers=min(HEAD_WORKERS, len(keys)), thread_name_prefix="ltm-head")
    try:
        futures = {pool.submit(current_head, h, key, timeout_s): key for key in keys}
        # queued reads wait for a free thread: allow one timeout per round of workers, plus slack
        rounds = -(-len(keys) // HEAD_WORKERS)
        done, pending = wait(futures, timeout=timeout_s * rounds + 5)
        for future in done:
            key = futures[future]
            try:
                heads[key] = future.result()
            except LtmError as e:
                failed[key] = str(e)
        for future in pending:
            failed[futures[future]] = f"no answer in {timeout_s:g}s: check the network and the URL"
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return heads, failed


def make_head_moved_sensor(home: str, job: Job, status: DefaultSensorStatus,
                           head_timeout_s: float = HEAD_TIMEOUT_S) -> object:
    """A sensor that requests a run when a registered repository's head differs from the last one seen."""

    @sensor(
        name="head_moved_sensor",
        job=job,
        minimum_interval_seconds=120,
        default_status=status,
        description="Launches an extract run for every registered repository whose branch head moved "
        "(run_key = repository@sha: the same head never runs twice). Remote heads are read with "
        f"`git ls-remote` in parallel, each given {head_timeout_s:g} s, so nothing is fetched until the run "
        "and one hung remote delays no other.",
    )
    def head_moved_sensor(context: SensorEvaluationContext) -> SensorResult | SkipReason:
        h = _home(home)
        keys = _registered_partitions(context, h)
        if not keys:
            return SkipReason("no registered repository is a `repos` partition yet")
        heads, failed = read_heads(h, keys, head_timeout_s)
        for key, why in sorted(failed.items()):
            context.log.warning(f"cannot read the head of {key}: {why}")
        requests = [
            RunRequest(run_key=f"{key}@{sha}", partition_key=key, tags={"ltm/trigger": "head_moved", "ltm/head": sha})
            for key, sha in sorted(heads.items())
        ]
        if not requests:
            return SkipReason(f"no head could be read: {'; '.join(f'{k}: {w}' for k, w in sorted(failed.items()))}")
        return SensorResult(run_requests=requests)

    return head_moved_sensor


def make_nightly_schedule(home: str, job: Job, cron: str, timezone: str, status: DefaultScheduleStatus) -> object:
    """A schedule that requests one incremental ingest run per registered repository."""

    @schedule(
        name="nightly_ingest",
        job=job,
        cron_schedule=cron,
        execution_timezone=timezone,
        default_status=status,
        description=f"One incremental extract run per registered repository ({cron}, {timezone}); the "
        "stores_after_extraction sensor then builds the home's stores once for all of them.",
    )
    def nightly_ingest(context: ScheduleEvaluationContext) -> list[RunRequest] | SkipReason:
        h = _home(home)
        keys = _registered_partitions(context, h)
        if not keys:
            return SkipReason("no registered repository is a `repos` partition yet")
        day = context.scheduled_execution_time.isoformat() if context.scheduled_execution_time else "now"
        return [
            RunRequest(run_key=f"nightly:{key}:{day}", partition_key=key, tags={"ltm/trigger": "nightly"})
            for key in keys
        ]

    return nightly_ingest


def make_maintenance_schedule(job: Job, cron: str, timezone: str, status: DefaultScheduleStatus) -> object:
    """A schedule that runs the maintenance job (compaction, old builds, index coverage)."""

    @schedule(
        name="weekly_maintenance",
        job=job,
        cron_schedule=cron,
        execution_timezone=timezone,
        default_status=status,
        description=f"LanceDB compaction, old graph builds removed, index coverage checked ({cron}, {timezone}).",
    )
    def weekly_maintenance(context: ScheduleEvaluationContext) -> RunRequest:
        return RunRequest(tags={"ltm/trigger": "maintenance"})

    return weekly_maintenance
