"""The registered repository itself: validated, or cloned and fetched, before anything is mined."""

import time

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.partitions import OWNERS, repos_partitions
from ltm.repos import sync_repository
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
    started = time.perf_counter()
    state = sync_repository(home.home(), context.partition_key)
    return MaterializeResult(
        metadata={
            "repo": state.key,
            "head": state.head,
            "branch": state.branch or "(detached)",
            "source": state.url or str(state.path),
            "fetched": state.fetched,
            "seconds": MetadataValue.float(round(time.perf_counter() - started, 3)),
        }
    )
