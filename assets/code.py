"""Code entities at HEAD of one repository into the lake."""

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.partitions import OWNERS, repos_partitions
from ltm.stages import stage_code
from resources import HomeResource


@asset(
    partitions_def=repos_partitions,
    deps=["repository"],
    group_name="extract",
    kinds={"tree-sitter", "parquet"},
    owners=OWNERS,
    description="Files, modules, classes and functions at HEAD in eleven languages (qualified names, lines, "
    "signatures, docstrings) with DEFINED_IN, BELONGS_TO, HAS_METHOD, IMPORTS, DEPENDS_ON, EXTENDS, "
    "IMPLEMENTS and CALLS, parsed with tree-sitter.",
)
def code_entities(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    stats = stage_code(home.home().repo_path(key), key, home.lake())
    mb = stats.extra["bytes_parsed"] / 1e6
    return MaterializeResult(
        metadata={
            "repo": key,
            **{f"rows_{t}": n for t, n in stats.rows.items()},
            "files_parsed": stats.extra["files_parsed"],
            "syntax_error_files": stats.extra["syntax_error_files"],
            "skipped": MetadataValue.json(stats.extra["skipped"]),
            "languages": MetadataValue.json(stats.extra["languages"]),
            "calls": MetadataValue.json(stats.extra["calls"]),  # unresolved calls are counted, never guessed
            "workers": stats.extra["workers"],
            "seconds": MetadataValue.float(round(stats.seconds, 3)),
            "mb_per_second": MetadataValue.float(round(mb / stats.seconds, 2) if stats.seconds else 0.0),
        }
    )
