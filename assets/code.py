"""Code entities at HEAD of one repository into the lake."""

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.metadata import materialized
from assets.partitions import OWNERS, repos_partitions
from ltm.stages.code import stage_code
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
    return materialized(stage_code(home.home().repo_path(key), key, home.lake()))
