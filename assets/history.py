"""Commit history of one repository into the lake: commits, file changes, MODIFIES, renames."""

from typing import Optional

from dagster import AssetExecutionContext, Config, MaterializeResult, asset
from pydantic import Field

from assets.metadata import materialized
from assets.metadata import lake_table
from assets.partitions import OWNERS, repos_partitions
from assets.versions import code_version
from ltm.extract.history.mine import BATCH_ROWS, CHUNK_COMMITS, DEFAULT_SKIP_PATTERNS
from ltm.extract.history.spans import MEMORY_SPANS
from ltm.run_report import most_changed_functions, most_changed_markdown
from ltm.stages.history import HistoryOptions, stage_history
from resources import HomeResource


class CommitsConfig(Config):
    """How much history to mine and from where."""

    branch: Optional[str] = Field(default=None, description="Branch or ref to mine; empty means the branch at HEAD")
    since: Optional[str] = Field(default=None, description="Only commits after this date (git's --since, e.g. 2024-01-01)")
    max_commits: Optional[int] = Field(default=None, description="Mine at most this many commits (newest first)")
    skip_patterns: list[str] = Field(
        default=list(DEFAULT_SKIP_PATTERNS),
        description="Paths to skip: `dir/` matches a folder anywhere, other globs a file name or path",
    )
    full: bool = Field(default=False, description="Ignore the cursor and mine the whole range again")
    workers: int = Field(default=0, description="Processes that parse blobs; 0 means one per CPU (at most 4)")
    batch_rows: int = Field(
        default=BATCH_ROWS, description="Rows held before they are written to the lake (peak memory follows it)"
    )
    chunk_commits: int = Field(
        default=CHUNK_COMMITS, description="Commits the parser processes take at once, once chunks have doubled "
        "up to it (peak memory follows it through the chunk's file changes; longer: fewer parses from scratch)"
    )
    memory_spans: int = Field(
        default=MEMORY_SPANS, description="Spans the span cache holds in memory (the rest are read back from its file)"
    )
    until: Optional[str] = Field(
        default=None, description="Mine only up to this commit of the branch (a backfill window); the next run "
        "continues from it. See `ltm backfill`."
    )


@asset(
    partitions_def=repos_partitions,
    deps=["repository"],
    group_name="extract",
    kinds={"git", "parquet"},
    owners=OWNERS,
    metadata=lake_table("Commit"),
    code_version=code_version("ltm.stages.history", "ltm.extract.history.mine"),
    description="Every commit of the branch (authors, dates with zone, message, kind), its per-file changes, "
    "PARENT_OF, function/class/file MODIFIES and RENAMED_FROM, mined incrementally by one streaming `git log`.",
)
def commits(context: AssetExecutionContext, config: CommitsConfig, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    h = home.home()
    opts = HistoryOptions(
        config.branch, config.since, config.max_commits, tuple(config.skip_patterns), config.full,
        workers=config.workers, until=config.until, batch_rows=config.batch_rows,
        chunk_commits=config.chunk_commits, memory_spans=config.memory_spans,
    )
    stats = stage_history(h.repo_path(key), key, home.lake(), h.cache, opts)
    context.log.info(f"history of {key}: {stats.mode}, {stats.commits_mined} commits mined, tip {stats.tip[:12]}")
    changed = most_changed_markdown(most_changed_functions(home.lake(), key, stats.commits_mined))
    return materialized(stats, markdown={"most_changed_functions": changed}, rows=stats.commits_total)
