"""`HybridLTM.add`: store one memory online, searchable at once, in the graph at once, durable.

The seed's five steps, in this order, under the home's `memories` lock:
1. embed the content with the model of the vector table (else the home's embedder);
2. the node: a Memory row merged into the lake's `memories` partition (the source of truth), with
   its embedding in `embeddings/repo=memories`, so every later rebuild contains it;
3. the vector row, carrying the node id, upserted into LanceDB (visible to search at once);
4. the node in the graph, then its `vector_id` set: builds are immutable, so the current build is
   copied, amended and switched in under the graph lock (`ltm.graph.amend`);
5. its edges: `graph_links` and the automatic links against the code entities in the lake, also
   merged into the lake's link tables so the next backfill and build keep them.
A linking failure never fails the add: it is logged and returned in `link_errors`. Without a graph
build yet, the node waits for the first build (`in_graph` False).
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timezone
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ltm import ids
from ltm.embed.providers import Embedder, make_embedder
from ltm.graph.amend import amend_current
from ltm.graph.build import check_space
from ltm.graph.kuzu_store import query
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.linking import RELS, link_memories, memory_frame
from ltm.memory.records import MEMORY_PARTITION, MemoryType, memory_row
from ltm.memory.store import code_index, merge_table, save_memories
from ltm.schema import EMBEDDINGS, NODE_TABLES, lake_schema
from ltm.vectors import VectorStore, vector_rows

log = logging.getLogger(__name__)
SOURCE = "online"


def online_embedder(home: Home, store: VectorStore) -> Embedder:
    """The embedder of the vector table's model, else the home's configured provider."""
    meta = store.model()
    if meta:
        from ltm.query import embedder_for_model

        return embedder_for_model(meta["model"], meta["dim"])
    return make_embedder(home.settings().get("embedder") or "local")


def _write_embedding(lake: Lake, row: dict[str, Any], embedder: Embedder, vector: Any) -> None:
    emb = pa.table(
        {
            "vector_id": [row["vector_id"]], "text_hash": [ids.text_hash(row["text"])],
            "model": [embedder.model_id], "dim": pa.array([embedder.dim], pa.int32()),
            "vector": pa.array([list(map(float, vector))], pa.list_(pa.float32())),
        },
        schema=EMBEDDINGS,
    )
    merged = merge_table(lake, "embeddings", emb, ["vector_id"])
    with lake.write(MEMORY_PARTITION) as w:
        w.write("embeddings", merged)


def _links(lake: Lake, row: dict[str, Any]) -> tuple[pl.DataFrame, list[str]]:
    """The memory's links against the lake's code, and errors; never raises."""
    try:
        result = link_memories(memory_frame([row]), code_index(lake))
        return result.links, [reason for _, reason in result.failures]
    except Exception as e:  # a linking failure never fails the memory's storage
        log.warning("linking memory %s failed: %s", row["id"], e)
        return pl.DataFrame(), [f"linking failed: {e}"]


def _persist_links(lake: Lake, mem_id: str, links: pl.DataFrame, now: datetime) -> None:
    with lake.write(MEMORY_PARTITION) as w:
        for rel in RELS.values():
            old = pl.from_arrow(lake.read(rel, MEMORY_PARTITION)).filter(pl.col("src") != mem_id)
            new = links.filter(pl.col("rel") == rel) if links.height else pl.DataFrame()
            if new.height:
                new = new.select(
                    "src", "dst", pl.lit("Memory").alias("src_label"), "dst_label", "repo", "relevance_score",
                    "context", pl.lit(now, dtype=pl.Datetime("us", "UTC")).alias("linked_at"),
                )
                old = pl.concat([old, new.cast(old.schema)], how="vertical")
            w.write(rel, old.to_arrow().cast(lake_schema(rel)))


def _graph_change(row: dict[str, Any], links: pl.DataFrame, now: datetime):
    cols = [c for c in NODE_TABLES["Memory"].graph.names if c != "vector_id"]

    def change(conn) -> None:
        query(conn, "MATCH (m:Memory) WHERE m.id = $id DETACH DELETE m", {"id": row["id"]})
        props = ", ".join(f"{c}: ${c}" for c in cols)
        query(conn, f"CREATE (m:Memory {{{props}}})", {c: row[c] for c in cols})
        query(conn, "MATCH (m:Memory) WHERE m.id = $id SET m.vector_id = $vid", {"id": row["id"], "vid": row["vector_id"]})
        for rel, dst, label, score, ctx in (
            links.select("rel", "dst", "dst_label", "relevance_score", "context").iter_rows() if links.height else []
        ):
            query(
                conn,
                f"MATCH (m:Memory), (e:{label}) WHERE m.id = $src AND e.id = $dst "
                f"CREATE (m)-[:{rel} {{relevance_score: $score, context: $ctx, linked_at: $at}}]->(e)",
                {"src": row["id"], "dst": dst, "score": score, "ctx": ctx, "at": now},
            )

    return change


def add_memory(home: Home, content: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store one memory (see the module doc); returns its `vector_id` and `graph_entity_id`."""
    md = dict(metadata or {})
    mem_id = str(md.pop("id", None) or uuid.uuid4().hex)
    now = datetime.now(timezone.utc)
    md.setdefault("created_at", now.isoformat())
    row = memory_row(SOURCE, mem_id, content, metadata=md, default_type=MemoryType.EPISODIC)
    lake, store = Lake(home.lake), VectorStore(home.vectors)
    embedder = online_embedder(home, store)
    check_space(home.graph, "a memory (the graph is amended in a copy)")  # before anything is written
    with home.lock("memories", timeout=600):
        vector = embedder.embed([row["text"]])[0]
        save_memories(lake, [row])
        _write_embedding(lake, row, embedder, vector)
        rows = vector_rows(lake, MEMORY_PARTITION)
        mask = pc.equal(rows.column("vector_id"), row["vector_id"])
        with home.lock("vectors", timeout=600):
            store.upsert_rows(rows.filter(mask))
        links, errors = _links(lake, row)
        _persist_links(lake, row["id"], links, now)
    with home.lock("graph", timeout=600):
        build = amend_current(home.graph, _graph_change(row, links, now))
    return {
        "vector_id": row["vector_id"], "graph_entity_id": row["id"],
        "links": links.height, "link_errors": errors, "in_graph": build is not None,
    }
