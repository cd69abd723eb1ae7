"""Commit history of one repository into the lake."""

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.partitions import OWNERS, repos_partitions
from ltm.stages import stage_commits
from resources import HomeResource


@asset(
    partitions_def=repos_partitions,
    group_name="extract",
    kinds={"git", "parquet"},
    owners=OWNERS,
    description="Every commit reachable from HEAD (author, committer, dates with zone, message, kind) "
    "and PARENT_OF edges, mined by one streaming `git log`, written to the lake.",
)
def commits(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    h = home.home()
    stats = stage_commits(h.repo_path(key), key, home.lake())
    n = stats.rows["Commit"]
    return MaterializeResult(
        metadata={
            "repo": key,
            "commits": n,
            "parent_edges": stats.rows["PARENT_OF"],
            "head": stats.extra["head"],
            "shallow": stats.extra["shallow"],
            "seconds": MetadataValue.float(round(stats.seconds, 3)),
            "commits_per_second": MetadataValue.float(round(n / stats.seconds, 1) if stats.seconds else 0.0),
        }
    )
