"""The registered repository itself: validated, or cloned and fetched, before anything is mined."""

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.metadata import materialized
from assets.partitions import OWNERS, repos_partitions
from ltm.stages.repository import stage_repository
from resources import HomeResource


@asset(
    partitions_def=repos_partitions,
    group_name="extract",
    kinds={"git"},
    owners=OWNERS,
    description="The registered repository: a local path is validated; a URL is cloned read-only into "
    "<home>/repos (a bare mirror) and fetched, so the run mines the remote's newest commits.",
)
def repository(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    return materialized(stage_repository(home.home(), context.partition_key))
