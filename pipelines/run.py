"""In-process runs of the ingest job against a home's Dagster instance (what `ltm ingest` calls).

The core library never imports Dagster; the CLI reaches it only through this module, so a run
started from the terminal is recorded in `<home>/dagster` and shows up in the web UI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dagster import DagsterInstance

from ltm.home import Home
from pipelines.definitions import INGEST_JOB, build_definitions

_QUIET_RUN = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


@dataclass
class RunSummary:
    run_id: str
    repo: str
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)


def ingest_partitions(
    home: Home, keys: list[str], embedder: str, on_done: Callable[[RunSummary], None] | None = None,
    commits_config: dict[str, Any] | None = None, bugs_config: dict[str, Any] | None = None,
) -> list[RunSummary]:
    """Register `keys` as `repos` partitions and run the ingest job for each, in order.

    `commits_config` is the `commits` asset's config (branch, since, max_commits, skip_patterns, full);
    `bugs_config` the `bugs` asset's (issues_path, max_commit_files).
    """
    instance = DagsterInstance.from_config(str(home.dagster))
    job = build_definitions(home=str(home.root), embedder=embedder).resolve_job_def(INGEST_JOB)
    ops = {name: {"config": cfg} for name, cfg in (("commits", commits_config), ("bugs", bugs_config)) if cfg}
    run_config = {**_QUIET_RUN, **({"ops": ops} if ops else {})}
    summaries = []
    for key in keys:
        instance.add_dynamic_partitions("repos", [key])
        result = job.execute_in_process(partition_key=key, instance=instance, run_config=run_config)
        summary = RunSummary(result.run_id, key)
        for event in result.get_asset_materialization_events():
            mat = event.event_specific_data.materialization  # type: ignore[union-attr]
            summary.metadata[mat.asset_key.to_user_string()] = {k: v.value for k, v in mat.metadata.items()}
        summaries.append(summary)
        if on_done:
            on_done(summary)
    return summaries
