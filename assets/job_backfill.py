"""Runs of a job backfill leave the home-wide stores to one build after the backfill.

A job backfill of `ingest` (the UI's Jobs > ingest > Partitions > Launch backfill) launches the
whole job once per repository partition; if each run built the stores, N repositories would
build the graph N times. Such a run extracts its partition and skips `imported_memories`, so the
steps after it (`memory_links`, `graph`, `vectors`, `reconciliation`) are skipped by Dagster;
`stores_after_extraction` (`pipelines.batch`) then requests one `stores` run once the backfill has
ended. An asset backfill already plans the unpartitioned assets once, and a run outside any
backfill (one partition of `ingest` from the UI) builds the stores in the same run.
"""

from __future__ import annotations

from dagster import AssetExecutionContext
from dagster._core.storage.tags import BACKFILL_ID_TAG  # "dagster/backfill"; no public name in Dagster 1.13


def job_backfill_of(context: AssetExecutionContext) -> str | None:
    """The id of the job backfill whose run this is, else None (no backfill, or an asset backfill).

    A backfill the instance no longer holds counts as none: the run builds the stores itself.
    """
    backfill_id = context.run.tags.get(BACKFILL_ID_TAG)
    if not backfill_id:
        return None
    backfill = context.instance.get_backfill(backfill_id)
    if backfill is None or backfill.is_asset_backfill:
        return None
    return backfill_id
