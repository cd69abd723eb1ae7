"""Bugs of one repository: fix evidence, issue export, AFFECTS, SZZ and defect signals."""

from dagster import AssetExecutionContext, Config, MaterializeResult, MetadataValue, asset
from pydantic import Field

from assets.partitions import OWNERS, repos_partitions
from ltm.bugs.stage import stage_bugs
from ltm.bugs.szz import MAX_FILES
from resources import HomeResource


class BugsConfig(Config):
    """Where the issue export is and which fix commits SZZ skips."""

    issues_path: str = Field(default="", description="JSON Lines issue export (GitHub REST issue fields); empty: none")
    max_commit_files: int = Field(default=MAX_FILES, description="Fix commits changing more files are not blamed")


@asset(
    partitions_def=repos_partitions,
    deps=["commits"],
    group_name="extract",
    kinds={"git", "parquet"},
    owners=OWNERS,
    description="Bug nodes with FIXES (evidence, confidence) from the fixing commits, AFFECTS on the functions "
    "they changed, INTRODUCED_BY from SZZ (one `git blame -w -M -C` per file with line ranges), and "
    "per-function defect signals (fix_count, churn, bugs_introduced).",
)
def bugs(context: AssetExecutionContext, config: BugsConfig, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    stats = stage_bugs(home.home().repo_path(key), key, home.lake(), config.issues_path or None, config.max_commit_files)
    for n, why in stats.extra["bad_issue_lines"]:
        context.log.warning(f"issue export line {n} skipped: {why}")
    return MaterializeResult(
        metadata={
            "repo": key,
            **{f"rows_{t}": n for t, n in stats.rows.items()},
            "fix_commits": stats.extra["fix_commits"],
            "counts": MetadataValue.json({k: v for k, v in stats.extra.items() if isinstance(v, int)}),
            "bad_issue_lines": len(stats.extra["bad_issue_lines"]),
            "bad_issue_lines_first": MetadataValue.json(stats.extra["bad_issue_lines"][:20]),
            "seconds": MetadataValue.float(round(stats.seconds, 3)),
        }
    )
