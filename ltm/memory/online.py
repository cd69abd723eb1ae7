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
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ltm import ids
from ltm.embed.base import Embedder
from ltm.embed.cache import plan_requests
from ltm.embed.registry import embedder_for_home, embedder_for_model
from ltm.errors import DimensionMismatchError
from ltm.graph.amend import amend_current
from ltm.graph.build import check_space
from ltm.graph.engine import query
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.linking import RELS, link_memories, memory_frame
from ltm.memory.records import (
    MEMORY_PARTITION,
    MemoryInputError,
    MemoryType,
    memory_row,
)
from ltm.memory.store import code_index, merge_table, save_memories
from ltm.redact import redact_row
from ltm.schema import NODE_TABLES, lake_schema
from ltm.stages.embeddings import embeddings_table
from ltm.vectors import VectorStore, vector_rows

log = logging.getLogger(__name__)
SOURCE = "online"


def online_embedder(home: Home, store: VectorStore) -> Embedder:
    """The embedder of the vector table's model, else the one the home's settings name (as the pipeline's)."""
    meta = store.model()
    if meta:
        return embedder_for_model(meta["model"], meta["dim"])
    return embedder_for_home(home)


def _embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """One vector per text, in the provider's batches (and token budget)."""
    sent, batches = plan_requests(embedder, texts)
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for batch in batches:
        got = np.asarray(embedder.embed([sent[i] for i in batch]), dtype=np.float32)
        if got.shape != (len(batch), embedder.dim):
            raise DimensionMismatchError(
                f"{embedder.model_id} returned vectors of shape {got.shape} for {len(batch)} texts, the vector "
                f"table holds dimension {embedder.dim}: use the model the table was built with, or switch the "
                "home with `ltm reembed`"
            )
        out[batch] = got
    return out


def _write_embeddings(lake: Lake, rows: list[dict[str, Any]], embedder: Embedder, vectors: np.ndarray) -> None:
    emb = embeddings_table([r["vector_id"] for r in rows], [ids.text_hash(r["text"]) for r in rows],
                           embedder.model_id, embedder.dim, vectors.astype(np.float32).reshape(-1))
    merged = merge_table(lake, "embeddings", emb, ["vector_id"])
    with lake.write(MEMORY_PARTITION) as w:
        w.write("embeddings", merged)


def _links(lake: Lake, rows: list[dict[str, Any]]) -> tuple[pl.DataFrame, dict[str, list[str]]]:
    """The memories' links against the lake's code, and errors by memory id; never raises."""
    try:
        result = link_memories(memory_frame(rows), code_index(lake))
        errors: dict[str, list[str]] = {}
        for mem_id, reason in result.failures:
            errors.setdefault(mem_id, []).append(reason)
        return result.links, errors
    except Exception as e:  # a linking failure never fails the memories' storage
        log.warning("linking memories %s failed: %s", ", ".join(r["id"] for r in rows[:3]), e)
        return pl.DataFrame(), {r["id"]: [f"linking failed: {e}"] for r in rows}


def _persist_links(lake: Lake, mem_ids: list[str], links: pl.DataFrame, now: datetime) -> None:
    with lake.write(MEMORY_PARTITION) as w:
        for rel in RELS.values():
            old = pl.from_arrow(lake.read(rel, MEMORY_PARTITION)).filter(~pl.col("src").is_in(mem_ids))
            new = links.filter(pl.col("rel") == rel) if links.height else pl.DataFrame()
            if new.height:
                new = new.select(
                    "src", "dst", pl.lit("Memory").alias("src_label"), "dst_label", "repo", "relevance_score",
                    "context", pl.lit(now, dtype=pl.Datetime("us", "UTC")).alias("linked_at"),
                )
                old = pl.concat([old, new.cast(old.schema)], how="vertical")
            w.write(rel, old.to_arrow().cast(lake_schema(rel)))


def _graph_change(rows: list[dict[str, Any]], links: pl.DataFrame, now: datetime):
    cols = [c for c in NODE_TABLES["Memory"].graph.names if c != "vector_id"]
    props = ", ".join(f"{c}: ${c}" for c in cols)

    def change(conn) -> None:
        for row in rows:
            query(conn, "MATCH (m:Memory) WHERE m.id = $id DETACH DELETE m", {"id": row["id"]})
            query(conn, f"CREATE (m:Memory {{{props}}})", {c: row[c] for c in cols})
            query(conn, "MATCH (m:Memory) WHERE m.id = $id SET m.vector_id = $vid", {"id": row["id"], "vid": row["vector_id"]})
        for src, rel, dst, label, score, ctx in (
            links.select("src", "rel", "dst", "dst_label", "relevance_score", "context").iter_rows() if links.height else []
        ):
            query(
                conn,
                f"MATCH (m:Memory), (e:{label}) WHERE m.id = $src AND e.id = $dst "
                f"CREATE (m)-[:{rel} {{relevance_score: $score, context: $ctx, linked_at: $at}}]->(e)",
                {"src": src, "dst": dst, "score": score, "ctx": ctx, "at": now},
            )

    return change


def add_memory(home: Home, content: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store one memory (see the module doc); returns its `vector_id` and `graph_entity_id`."""
    return add_memories(home, [(content, metadata)])[0]


def add_memories(home: Home, entries: Iterable[tuple[str, dict[str, Any] | None]]) -> list[dict[str, Any]]:
    """Store several memories as one add: one embedding pass, one write per lake table, one vector
    upsert and one graph amendment (an add's cost is mostly the amendment, so a batch costs about one).

    `entries` are (content, metadata) pairs; returns one result per entry, in order. A bad entry
    refuses the whole batch, naming it, before anything is written. Two entries with one `id`: the
    later wins, as in an import.
    """
    now = datetime.now(timezone.utc)
    rows: list[dict[str, Any]] = []
    entries = list(entries)
    for i, entry in enumerate(entries):
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise MemoryInputError(_which(i, len(entries), f"an entry is a (content, metadata) pair, got {entry!r:.80}"))
        content, metadata = entry
        if metadata is not None and not isinstance(metadata, dict):
            raise MemoryInputError(_which(i, len(entries), f"metadata must be an object, got {type(metadata).__name__}"))
        md = dict(metadata or {})
        mem_id = str(md.pop("id", None) or uuid.uuid4().hex)
        md.setdefault("created_at", now.isoformat())
        try:
            rows.append(memory_row(SOURCE, mem_id, content, metadata=md, default_type=MemoryType.EPISODIC))
        except MemoryInputError as e:
            raise MemoryInputError(_which(i, len(entries), str(e))) from e
    if not rows:
        return []
    lake, store = home.open_lake(), VectorStore(home.vectors)
    if lake.redact:  # before the content is embedded or written anywhere
        rows = [redact_row(r) for r in rows]
    unique = list({r["id"]: r for r in rows}.values())  # the later entry of one id wins
    embedder = online_embedder(home, store)
    check_space(home.graph, "memories (the graph is amended in a copy)")  # before anything is written
    with home.lock("memories", timeout=600):
        vectors = _embed(embedder, [r["text"] for r in unique])
        save_memories(lake, unique)
        _write_embeddings(lake, unique, embedder, vectors)
        table = vector_rows(lake, MEMORY_PARTITION)
        vids = pa.array([r["vector_id"] for r in unique], table.schema.field("vector_id").type)
        with home.lock("vectors", timeout=600):
            store.upsert_rows(table.filter(pc.is_in(table.column("vector_id"), value_set=vids)))
        links, errors = _links(lake, unique)
        _persist_links(lake, [r["id"] for r in unique], links, now)
    with home.lock("graph", timeout=600):
        build = amend_current(home.graph, _graph_change(unique, links, now))
    counts = links.group_by("src").len() if links.height else None
    per_id = dict(counts.iter_rows()) if counts is not None else {}
    return [
        {"vector_id": r["vector_id"], "graph_entity_id": r["id"], "links": per_id.get(r["id"], 0),
         "link_errors": errors.get(r["id"], []), "in_graph": build is not None}
        for r in rows
    ]


def _which(i: int, n: int, message: str) -> str:
    return message if n == 1 else f"memory {i + 1} of {n}: {message}"
