"""Memories: documentation of the repository, imported memories' vectors, and the link backfill.

`imported_memories` and `memory_links` work on the whole home, not one repository: they are
unpartitioned, and run once per batch of repositories (the `stores` job, or an asset backfill's
last step), before the graph build, so every build has the current links. In a run of a job
backfill of `ingest`, `imported_memories` yields nothing, so the stores after it are skipped and
built once after the backfill (`assets.job_backfill`).
"""

from collections.abc import Iterator

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.job_backfill import job_backfill_of
from assets.metadata import lake_table, materialized, row_count
from assets.partitions import OWNERS, repos_partitions
from assets.versions import code_version
from ltm.memory.backfill import backfill_links, sync_memory_vectors
from ltm.memory.evolution import evolve_lake
from ltm.memory.store import refresh_sources
from ltm.stages.docs import stage_docs
from resources import EmbedderResource, HomeResource, LanceVectorsResource, MemorySourcesResource


@asset(
    partitions_def=repos_partitions,
    deps=["repository"],
    group_name="extract",
    kinds={"markdown", "parquet"},
    owners=OWNERS,
    metadata=lake_table("Memory"),
    code_version=code_version("ltm.stages.docs", "ltm.memory.docs"),
    description="Markdown and reStructuredText files at HEAD as Doc memories, one per heading "
    "(category architecture or guideline), in the repository's lake partition.",
)
def doc_memories(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    key = context.partition_key
    stats = stage_docs(home.home().repo_path(key), key, home.lake())
    return materialized(stats, rows=stats.rows)


@asset(
    group_name="memories",
    kinds={"parquet", "lancedb"},
    owners=OWNERS,
    metadata=lake_table("Memory"),
    code_version=code_version("ltm.memory.store", "ltm.memory.sources", "ltm.memory.backfill"),
    pool="lancedb",
    output_required=False,  # not in a job backfill's runs: the stores after it are then skipped
    description="Memory sources re-read (those `ltm memory import` registered and the configured ones) "
    "into the lake partition `memories`, embedded (cached by text hash), and their vector rows made "
    "equal to the lake (upsert by vector_id, delete what left). Skipped, with the stores after it, in "
    "the runs of a job backfill of `ingest`: stores_after_extraction builds them once after it.",
)
def imported_memories(
    context: AssetExecutionContext, memory_sources: MemorySourcesResource, home: HomeResource,
    embedder: EmbedderResource, lance: LanceVectorsResource,
) -> Iterator[MaterializeResult]:
    backfill = job_backfill_of(context)
    if backfill:
        context.log.info(f"run of job backfill {backfill}: the home's stores are left to one stores run "
                         "after it (the stores_after_extraction sensor)")
        return
    h = home.home()
    reports = refresh_sources(h, memory_sources.sources)
    with h.lock("memories", timeout=lance.lock_timeout_s), h.lock("vectors", timeout=lance.lock_timeout_s):
        rebuilt = lance.store().rebuild_if_damaged(home.lake())
        stats = sync_memory_vectors(home.lake(), embedder.embedder(), h.cache / "embeddings", lance.store())
    yield MaterializeResult(
        metadata={"memories": stats.rows, "embedded_now": stats.embedded_now, "vector_rows": stats.upserted,
                  "deleted": stats.deleted, "sources": MetadataValue.json(reports),
                  "rebuilt_from_lake": MetadataValue.json(rebuilt),
                  "summary": f"memories={stats.rows} embedded_now={stats.embedded_now}", **row_count(stats.rows)}
    )


@asset(
    deps=["code_entities", "doc_memories", "imported_memories"],
    group_name="memories",
    kinds={"polars", "parquet"},
    owners=OWNERS,
    metadata=lake_table("RELATES_TO_FUNCTION"),  # RELATES_TO_FILE and _CLASS have the same columns
    code_version=code_version("ltm.memory.backfill", "ltm.memory.linking", "ltm.memory.conversations",
                              "ltm.memory.evolution", "ltm.memory.evolution_pass", "ltm.memory.memory_vectors",
                              "ltm.memory.similarity", "ltm.memory.supersession"),
    description="Backfill: every memory of the home relinked to the code of every repository "
    "(RELATES_TO_FILE / FUNCTION / CLASS); metadata shows links added and removed since the last run. "
    "Then the memories' SIMILAR_TO, SUPERSEDES and TRANSITIONED_TO edges, recomputed from all of them.",
)
def memory_links(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    h = home.home()
    with h.lock("memories", timeout=3600):
        stats = backfill_links(home.lake())
        evolved = evolve_lake(home.lake())
    if stats.failures:
        context.log.warning(f"{stats.failures} memory links failed, e.g. {stats.failure_sample[:3]}")
    return MaterializeResult(
        metadata={
            "memories": stats.memories, "links": stats.links, "links_added": stats.added,
            "links_removed": stats.removed, "by_rel": MetadataValue.json(stats.by_rel),
            "by_rule": MetadataValue.json(stats.by_rule), "link_failures": stats.failures,
            "failure_sample": MetadataValue.json(stats.failure_sample),
            "added_sample": MetadataValue.json(stats.added_sample),
            "removed_sample": MetadataValue.json(stats.removed_sample),
            "conversations": MetadataValue.json(stats.conversations),
            "seconds": MetadataValue.float(round(stats.seconds, 3)),
            "evolution": MetadataValue.json(evolved.edges),
            "evolution_seconds": MetadataValue.float(round(evolved.seconds, 3)),
            "summary": f"memories={stats.memories} links={stats.links} links_added={stats.added} "
            f"links_removed={stats.removed} superseded={evolved.edges.get('SUPERSEDES', 0)}",
            **row_count(stats.links),
        }
    )
