"""Definitions: the assets, their resources and the ingest job, for `dagster dev` and the CLI."""

from __future__ import annotations

from dagster import AssetSelection, Definitions, define_asset_job

from assets import ALL_ASSETS
from assets.partitions import repos_partitions
from resources import EmbedderResource, HomeResource, KuzuGraphResource, LanceVectorsResource, MemorySourcesResource

INGEST_JOB = "ingest"


def build_definitions(home: str = "", embedder: str = "") -> Definitions:
    """Definitions bound to a home (empty: $LTM_HOME, else ./.ltm) and an embedder provider.

    The OpenAI key is read from $OPENAI_API_KEY when the run starts; to bind it explicitly use
    `EmbedderResource(api_key=EnvVar("OPENAI_API_KEY"))`.
    """
    h = HomeResource(path=home)
    return Definitions(
        assets=ALL_ASSETS,
        jobs=[
            define_asset_job(
                INGEST_JOB,
                selection=AssetSelection.all(),
                partitions_def=repos_partitions,
                description="Mine, embed and store one repository, then rebuild the graph and reconcile.",
            )
        ],
        resources={
            "home": h,
            "embedder": EmbedderResource(home=h, provider=embedder),
            "kuzu": KuzuGraphResource(home=h),
            "lance": LanceVectorsResource(home=h),
            "memory_sources": MemorySourcesResource(),
        },
    )


defs = build_definitions()
