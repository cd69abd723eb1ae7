"""Code entities at HEAD of one repository into the lake."""

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.metadata import lake_table, materialized
from assets.partitions import OWNERS, repos_partitions
from assets.versions import code_version
from ltm.stages.code import stage_code
from resources import HomeResource


@asset(
    partitions_def=repos_partitions,
    deps=["repository"],
    group_name="extract",
    kinds={"tree-sitter", "parquet"},
    owners=OWNERS,
    metadata=lake_table("Function"),
    code_version=code_version("ltm.stages.code", queries=True),
    description="Files, modules, classes and functions at HEAD in eleven languages (qualified names, lines, "
    "signatures, docstrings) with DEFINED_IN, BELONGS_TO, HAS_METHOD, IMPORTS, DEPENDS_ON, EXTENDS, "
    "IMPLEMENTS and CALLS, parsed with tree-sitter.",
)
def code_entities(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    stats = stage_code(home.home().repo_path(key), key, home.lake())
    return materialized(stats, rows=stats.rows.get("Function", 0))
