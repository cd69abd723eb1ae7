"""Scheduled housekeeping over the whole home: LanceDB compaction, old graph builds, index coverage."""

from datetime import timedelta

from dagster import AssetCheckResult, AssetCheckSpec, Config, MaterializeResult, MetadataValue, asset
from pydantic import Field

from assets.metadata import row_count
from assets.partitions import OWNERS
from assets.versions import code_version
from ltm.maintenance import run_maintenance
from resources import HomeResource


class MaintenanceConfig(Config):
    vector_retention_hours: float = Field(
        default=24 * 7, description="LanceDB versions older than this are removed (at least 1 hour)"
    )
    graph_retention: int = Field(default=3, description="Complete graph builds kept (the current one always)")


@asset(
    group_name="maintenance",
    kinds={"lancedb", "kuzu"},
    owners=OWNERS,
    code_version=code_version("ltm.maintenance"),
    check_specs=[AssetCheckSpec("index_coverage", asset="maintenance",
                                description="Every key, full-text and vector index exists and covers every row.")],
    description="Compacts the LanceDB table (optimize, removal of versions past a safe retention), removes "
    "graph builds beyond the retention count, and checks that the indexes cover every row.",
)
def maintenance(config: MaintenanceConfig, home: HomeResource) -> MaterializeResult:
    report = run_maintenance(home.home(), timedelta(hours=config.vector_retention_hours), config.graph_retention)
    return MaterializeResult(
        metadata={
            "vector_rows": report.vector_rows, "memories_expired": report.memories_expired,
            "versions_before": report.versions_before, "versions_after": report.versions_after,
            "disk_bytes_before": report.disk_bytes_before, "disk_bytes_after": report.disk_bytes_after,
            "builds_removed": MetadataValue.json(report.builds_removed), "builds_kept": report.builds_kept,
            "vector_tables_dropped": MetadataValue.json(report.tables_dropped),
            "seconds": MetadataValue.float(round(report.seconds, 3)),
            **row_count(report.vector_rows),
        },
        check_results=[AssetCheckResult(
            check_name="index_coverage", passed=report.indexes_complete,
            metadata={"coverage": MetadataValue.json(report.index_coverage),
                      "missing": MetadataValue.json(report.missing_indexes)},
        )],
    )
