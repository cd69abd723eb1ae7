"""Embeddings into the lake, then the shared stores: the Kuzu graph, LanceDB, reconciliation.

`embeddings` is partitioned by repository; `graph`, `vectors` and `reconciliation` work on the
whole home and are not: a batch of repositories (a backfill, the nightly run, `ltm ingest A B C`)
builds them once, after every repository's extraction (`pipelines.batch`).
"""

from datetime import timedelta

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    FreshnessPolicy,
    MaterializeResult,
    MetadataValue,
    asset,
)

from assets.metadata import lake_table, lance_table, materialized, row_count
from assets.partitions import OWNERS, repos_partitions
from assets.retrying import EMBEDDINGS_RETRY, retry_only_if, retryable_embedding_error
from assets.versions import code_version
from ltm.reconcile import reconcile
from ltm.run_report import reconciliation_markdown
from ltm.stages.embeddings import embed_repo
from ltm.vector_sync import summary as sync_summary
from ltm.vector_sync import sync_vectors
from ltm.vectors import VectorStore
from resources import EmbedderResource, HomeResource, KuzuGraphResource, LanceVectorsResource

# The stores are rebuilt by the nightly run: a day without a new build warns, more than two fail.
STORE_WARN_WINDOW = timedelta(hours=26)
STORE_FAIL_WINDOW = timedelta(hours=50)


@asset(
    partitions_def=repos_partitions,
    deps=["commits", "code_entities", "bugs", "doc_memories"],
    group_name="embed",
    kinds={"python", "parquet"},
    owners=OWNERS,
    metadata=lake_table("embeddings"),
    code_version=code_version("ltm.stages.embeddings"),
    retry_policy=EMBEDDINGS_RETRY,  # the network is here: a batch the embedder gave up on is tried again
    description="A vector for every embedded entity (functions, classes, modules, commits, bugs), batched and "
    "cached by (model, text hash) so unchanged texts are never embedded twice.",
)
def embeddings(context: AssetExecutionContext, home: HomeResource, embedder: EmbedderResource) -> MaterializeResult:
    key = context.partition_key
    h = home.home()
    with retry_only_if(retryable_embedding_error):
        model = embedder.embedder()
        VectorStore(h.vectors).check_model(model.model_id, model.dim)  # refuse before paying for vectors
        stats = embed_repo(home.lake(), key, model, h.cache / "embeddings")
    return materialized(stats, rows=stats.rows)


@asset(
    deps=["commits", "code_entities", "bugs", "memory_links", "embeddings"],  # a failed stage never switches the graph
    group_name="stores",
    kinds={"kuzu"},
    owners=OWNERS,
    code_version=code_version("ltm.graph.build", "ltm.graph.amend", "ltm.graph.copy", "ltm.graph.partitions",
                              "ltm.graph.inputs", "ltm.graph.engine"),
    freshness_policy=FreshnessPolicy.time_window(fail_window=STORE_FAIL_WINDOW, warn_window=STORE_WARN_WINDOW),
    pool="kuzu",
    description="A complete Kuzu build COPYed from the lake (in full, or an amended copy of the current build "
    "with only the changed repositories' partitions replaced), count-checked, then switched in atomically "
    "(graph/CURRENT); readers keep the previous build until then.",
)
def graph(context: AssetExecutionContext, kuzu: KuzuGraphResource) -> MaterializeResult:
    stats = kuzu.build()
    return MaterializeResult(
        metadata={
            "build": stats.build_id,
            "nodes": MetadataValue.json(stats.nodes),
            "rels": MetadataValue.json(stats.rels),
            "node_total": sum(stats.nodes.values()),
            "edge_total": sum(stats.rels.values()),
            "dangling_edges": MetadataValue.json(stats.dangling_edges),
            "seconds": MetadataValue.float(round(stats.seconds, 3)),
            "reused": stats.reused,
            "mode": stats.mode,
            "changed_partitions": MetadataValue.json(stats.changed_partitions),
            **({"amend_refused": stats.amend_refused} if stats.amend_refused else {}),
            **({"amended_rows": MetadataValue.json(stats.amended_rows)} if stats.amended_rows else {}),
            "summary": f"node_total={sum(stats.nodes.values())} edge_total={sum(stats.rels.values())}"
                       + (" (lake unchanged: build kept)" if stats.reused else "")
                       + (f" (amended: {', '.join(stats.changed_partitions)})" if stats.mode == "amend" else ""),
            **row_count(sum(stats.nodes.values())),
        }
    )


@asset(
    deps=["embeddings", "graph"],  # after the graph: a crash in the build leaves both stores as they were
    group_name="stores",
    kinds={"lancedb"},
    owners=OWNERS,
    metadata=lance_table(),
    code_version=code_version("ltm.vectors", "ltm.vector_sync"),
    freshness_policy=FreshnessPolicy.time_window(fail_window=STORE_FAIL_WINDOW, warn_window=STORE_WARN_WINDOW),
    pool="lancedb",
    description="Every repository's vector rows upserted into LanceDB by vector_id (those whose lake files "
    "did not change since their last sync are skipped), rows whose entity left the lake deleted, then "
    "BTree + full-text indexes and optimize().",
)
def vectors(context: AssetExecutionContext, home: HomeResource, lance: LanceVectorsResource) -> MaterializeResult:
    h = home.home()
    lake = home.lake()
    repos = [key for key in h.registry() if key in set(lake.repos())]
    with h.lock("vectors", timeout=lance.lock_timeout_s):
        stats = sync_vectors(lake, lance.store(), repos, h.cache)
    figures = sync_summary(stats)
    return MaterializeResult(
        metadata={
            **{k: MetadataValue.json(v) if isinstance(v, list) else v for k, v in figures.items()},
            "vector_index": any(s.vector_index for s in stats.upserted.values()),
            "rebuilt_from_lake": MetadataValue.json(stats.rebuilt_from_lake),
            "summary": f"rows={stats.rows} table_rows={stats.table_rows} "
                       f"repos_upserted={len(stats.upserted)} repos_unchanged={len(stats.unchanged)}",
            **row_count(stats.rows),
        }
    )


@asset(
    deps=["graph", "vectors", "imported_memories"],
    group_name="stores",
    kinds={"kuzu", "lancedb"},
    owners=OWNERS,
    code_version=code_version("ltm.reconcile"),
    check_specs=[
        AssetCheckSpec("graph_nodes_have_vector_rows", asset="reconciliation",
                       description="Every graph node with a vector_id has its row, naming the node back."),
        AssetCheckSpec("vector_rows_have_graph_nodes", asset="reconciliation",
                       description="Every vector row's graph_entity_id is a node carrying that vector_id."),
    ],
    description="Proof that graph and vectors agree: both directions of the node <-> row link over the "
    "whole home, with orphans listed by id.",
)
def reconciliation(context: AssetExecutionContext, home: HomeResource) -> MaterializeResult:
    h = home.home()
    report = reconcile(h.graph, h.vectors)
    oc = report.orphan_counts
    forward = oc["nodes_without_vector_row"] + oc["node_to_row_mismatch"]
    backward = oc["vector_rows_without_node"] + oc["row_to_node_mismatch"]
    return MaterializeResult(
        metadata={
            "ok": report.ok, "graph_nodes_with_vector": report.graph_nodes_with_vector,
            "vector_rows": report.vector_rows, "coverage": MetadataValue.float(report.coverage),
            "report": MetadataValue.json(report.to_dict()),
            "report_markdown": MetadataValue.md(reconciliation_markdown(report.to_dict())),
            "summary": f"ok={report.ok} coverage={report.coverage}",
        },
        check_results=[
            AssetCheckResult(check_name="graph_nodes_have_vector_rows", passed=forward == 0,
                             severity=AssetCheckSeverity.ERROR,
                             metadata={"failures": forward, "sample": MetadataValue.json(report.orphans["nodes_without_vector_row"])}),
            AssetCheckResult(check_name="vector_rows_have_graph_nodes", passed=backward == 0,
                             severity=AssetCheckSeverity.ERROR,
                             metadata={"failures": backward, "sample": MetadataValue.json(report.orphans["vector_rows_without_node"])}),
        ],
    )
