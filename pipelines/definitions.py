"""Definitions: the assets, their resources, the jobs, sensors and schedules, for `dagster dev` and the CLI."""

from __future__ import annotations

import os

from dagster import (
    AssetSelection,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    Definitions,
    ExecutorDefinition,
    define_asset_job,
    in_process_executor,
)

from assets import ALL_ASSETS, EXTRACT_ASSETS, HOME_ASSETS, MAINTENANCE_ASSETS
from assets.partitions import repos_partitions
from pipelines.alerts import WEBHOOK_ENV, make_failure_sensor
from pipelines.batch import EXTRACT_JOB, STORES_JOB, make_stores_sensor
from pipelines.automation import (
    HEAD_TIMEOUT_S,
    MAINTENANCE_CRON,
    NIGHTLY_CRON,
    make_head_moved_sensor,
    make_maintenance_schedule,
    make_nightly_schedule,
    make_repos_yaml_sensor,
)
from pipelines.executor import forked_multiprocess_executor
from resources import EmbedderResource, HomeResource, KuzuGraphResource, LanceVectorsResource, MemorySourcesResource

INGEST_JOB = "ingest"
MAINTENANCE_JOB = "maintenance_job"


def build_definitions(
    home: str = "",
    embedder: str = "",
    executor: ExecutorDefinition | None = None,
    nightly_cron: str | None = None,
    timezone: str | None = None,
    automation: bool | None = None,
    head_timeout_s: float | None = None,
) -> Definitions:
    """Definitions bound to a home (empty: $LTM_HOME, else ./.ltm) and an embedder provider.

    `executor` runs the same jobs elsewhere (e.g. `pipelines.dask.dask_executor`); the default is
    Dagster's multiprocess executor with steps forked from a warm server (`pipelines.executor`);
    `$LTM_EXECUTOR=in_process`: every step in the run's own process. `nightly_cron` / `timezone` default to `$LTM_NIGHTLY_CRON` /
    `$LTM_TIMEZONE`, else 02:00 UTC. Sensors and schedules start stopped (turn them on in the UI)
    unless `automation` is True or `$LTM_AUTOMATION=on`, except `stores_after_extraction`, which
    always runs: it builds the home-wide stores once after a batch of extraction runs
    (`pipelines.batch`). `head_timeout_s` (default `$LTM_HEAD_TIMEOUT_S`,
    else 20) is how long the head-moved sensor waits for one remote's `git ls-remote`. The
    `run_failure_webhook` sensor posts failed runs to `$LTM_FAILURE_WEBHOOK` (`pipelines.alerts`).
    The OpenAI key is read from $OPENAI_API_KEY when the run starts; to bind it explicitly use
    `EmbedderResource(api_key=EnvVar("OPENAI_API_KEY"))`.
    """
    h = HomeResource(path=home)
    if executor is None:
        in_process = os.environ.get("LTM_EXECUTOR") == "in_process"
        executor = in_process_executor if in_process else forked_multiprocess_executor
    cron = nightly_cron or os.environ.get("LTM_NIGHTLY_CRON") or NIGHTLY_CRON
    tz = timezone or os.environ.get("LTM_TIMEZONE") or "UTC"
    on = automation if automation is not None else os.environ.get("LTM_AUTOMATION", "").lower() in ("1", "on", "true")
    head_timeout_s = head_timeout_s or _seconds("LTM_HEAD_TIMEOUT_S", HEAD_TIMEOUT_S)
    sensor_status = DefaultSensorStatus.RUNNING if on else DefaultSensorStatus.STOPPED
    schedule_status = DefaultScheduleStatus.RUNNING if on else DefaultScheduleStatus.STOPPED
    ingest = define_asset_job(
        INGEST_JOB,
        selection=AssetSelection.assets(*ALL_ASSETS),
        partitions_def=repos_partitions,
        description="Fetch, mine, embed and store one repository, then rebuild the graph and reconcile "
        "(for one repository; a batch runs `extract` per repository and `stores` once; in a job backfill "
        "of this job each run skips the stores, which stores_after_extraction builds once after it).",
    )
    extract = define_asset_job(
        EXTRACT_JOB,
        selection=AssetSelection.assets(*EXTRACT_ASSETS),
        partitions_def=repos_partitions,
        description="Fetch, mine and embed one repository into the lake; the stores_after_extraction "
        "sensor builds the home's stores once the batch's extraction runs have ended.",
    )
    stores = define_asset_job(
        STORES_JOB,
        selection=AssetSelection.assets(*HOME_ASSETS),
        description="The whole home's stores, once: memories re-read, links backfilled, graph built, "
        "vectors synced, graph and vectors reconciled.",
    )
    maintenance = define_asset_job(
        MAINTENANCE_JOB,
        selection=AssetSelection.assets(*MAINTENANCE_ASSETS),
        description="Compact LanceDB, remove old graph builds, check index coverage.",
    )
    return Definitions(
        assets=[*ALL_ASSETS, *MAINTENANCE_ASSETS],
        jobs=[ingest, extract, stores, maintenance],
        sensors=[
            make_repos_yaml_sensor(home, sensor_status),
            make_head_moved_sensor(home, extract, sensor_status, head_timeout_s),
            # on by default: it only follows extraction someone started (a UI run, a schedule, a sensor)
            make_stores_sensor(home, stores, DefaultSensorStatus.RUNNING, {INGEST_JOB, EXTRACT_JOB, STORES_JOB}),
            make_failure_sensor(DefaultSensorStatus.RUNNING if on or os.environ.get(WEBHOOK_ENV) else sensor_status),
        ],
        schedules=[
            make_nightly_schedule(home, extract, cron, tz, schedule_status),
            make_maintenance_schedule(maintenance, MAINTENANCE_CRON, tz, schedule_status),
        ],
        executor=executor,
        resources={
            "home": h,
            "embedder": EmbedderResource(home=h, provider=embedder),
            "kuzu": KuzuGraphResource(home=h),
            "lance": LanceVectorsResource(home=h),
            "memory_sources": MemorySourcesResource(),
        },
    )


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        value = -1.0
    if value <= 0:
        raise ValueError(f"${name}={raw!r} is not a number of seconds above 0: set it like {name}=20, or unset it")
    return value


defs = build_definitions()
