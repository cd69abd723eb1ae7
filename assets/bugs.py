"""Bugs of one repository: fix evidence, issue export, AFFECTS, SZZ and defect signals."""

from dagster import AssetExecutionContext, Config, MaterializeResult, asset
from pydantic import Field

from assets.metadata import lake_table, materialized
from assets.partitions import OWNERS, repos_partitions
from assets.versions import code_version
from ltm.bugs.szz import MAX_DEFINITIONS, MAX_FILES
from ltm.stages.bugs import stage_bugs
from resources import HomeResource


class BugsConfig(Config):
    """Where the issue export is and which fix commits SZZ skips."""

    issues_path: str = Field(default="", description="JSON Lines issue export (GitHub REST issue fields); empty: none")
    max_commit_files: int = Field(default=MAX_FILES, description="Fix commits changing more files are not blamed")
    max_fix_definitions: int = Field(
        default=MAX_DEFINITIONS,
        description="Fix commits changing more functions and classes (rewrites) get no AFFECTS and are not blamed",
    )
    full: bool = Field(default=False, description="Ignore the SZZ results kept from earlier runs and blame every fix again")


@asset(
    partitions_def=repos_partitions,
    deps=["commits"],
    group_name="extract",
    kinds={"git", "parquet"},
    owners=OWNERS,
    metadata=lake_table("Bug"),
    code_version=code_version("ltm.stages.bugs", "ltm.bugs.szz", "ltm.bugs.line_origins"),
    description="Bug nodes with FIXES (evidence, confidence) from the fixing commits, AFFECTS on the functions "
    "they changed, INTRODUCED_BY from SZZ (only for fixes not derived by an earlier run: many at once from one "
    "forward pass over the history, a few by `git blame -w -M` per file), and "
    "per-function defect signals (fix_count, churn, bugs_introduced).",
)
def bugs(context: AssetExecutionContext, config: BugsConfig, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    h = home.home()
    stats = stage_bugs(h.repo_path(key), key, home.lake(), config.issues_path or None, config.max_commit_files,
                       cache_dir=h.cache, full=config.full, max_definitions=config.max_fix_definitions)
    for n, why in stats.bad_issue_lines:
        context.log.warning(f"issue export line {n} skipped: {why}")
    return materialized(stats, rows=stats.rows.get("Bug", 0))
