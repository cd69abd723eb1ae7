"""The registered repository itself: validated, or cloned and fetched, before anything is mined."""

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.metadata import materialized
from assets.partitions import OWNERS, repos_partitions
from assets.retrying import REPOSITORY_RETRY, network_repository_error, retry_only_if
from assets.versions import code_version
from ltm.stages.repository import stage_repository
from resources import HomeResource


@asset(
    partitions_def=repos_partitions,
    group_name="extract",
    kinds={"git"},
    owners=OWNERS,
    code_version=code_version("ltm.stages.repository", "ltm.repos"),
    retry_policy=REPOSITORY_RETRY,  # the network is here (clone, fetch); only a remote's failure is retried
    description="The registered repository: a local path is validated; a URL is cloned read-only into "
    "<home>/repos (a bare mirror) and fetched, so the run mines the remote's newest commits.",
)
def repository(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    h = home.home()
    remote = bool(h.registry().get(context.partition_key, {}).get("url"))
    with retry_only_if(lambda e: network_repository_error(e, remote)):
        return materialized(stage_repository(h, context.partition_key))
