"""The backfill: relink every memory against every code entity, and diff with the last run.

Links are a pure function of (memories, code entities): each run recomputes all of them from the
whole lake and replaces `RELATES_TO_*/repo=memories/` at once (and the conversation graph,
`ltm.memory.conversations`). A link that existed before keeps
its `linked_at`; new links get the run's time. The stats name what was added and removed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pyarrow as pa

from ltm.embed.base import Embedder
from ltm.lake import Lake
from ltm.memory.conversations import write_conversations
from ltm.memory.linking import RELS, link_memories, memory_frame
from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.store import code_index, read_memories
from ltm.schema import lake_schema
from ltm.stages.embeddings import embed_repo
from ltm.vectors import VectorStore, vector_rows

SAMPLE = 10


@dataclass
class BackfillStats:
    """What a backfill run found and changed."""

    memories: int = 0
    links: int = 0
    added: int = 0
    removed: int = 0
    by_rel: dict[str, int] = field(default_factory=dict)
    by_rule: dict[str, int] = field(default_factory=dict)
    failures: int = 0
    failure_sample: list[str] = field(default_factory=list)
    added_sample: list[str] = field(default_factory=list)
    removed_sample: list[str] = field(default_factory=list)
    conversations: dict = field(default_factory=dict)  # the conversation graph (ltm.memory.conversations)
    seconds: float = 0.0


def previous_links(lake: Lake) -> pl.DataFrame:
    """The links the last run wrote (rel, src, dst, linked_at)."""
    parts = []
    for rel in RELS.values():
        t = pl.from_arrow(lake.read(rel, MEMORY_PARTITION, columns=["src", "dst", "linked_at"]))
        parts.append(t.with_columns(pl.lit(rel).alias("rel")).select("rel", "src", "dst", "linked_at"))
    return pl.concat(parts, how="vertical")


def _describe(df: pl.DataFrame) -> list[str]:
    return [f"{r} {s} -> {d}" for r, s, d in df.select("rel", "src", "dst").head(SAMPLE).iter_rows()]


def write_links(lake: Lake, links: pl.DataFrame, now: datetime) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Replace the link tables with `links`, keeping old `linked_at`; returns (added, removed)."""
    old = previous_links(lake)
    keys = ["rel", "src", "dst"]
    merged = links.join(old, on=keys, how="left").with_columns(
        pl.col("linked_at").fill_null(pl.lit(now, dtype=pl.Datetime("us", "UTC")))
    ).sort([*keys, "dst_label", "context", "relevance_score"])  # the same links give the same files, so an unchanged lake keeps its graph build
    added = links.join(old, on=keys, how="anti")
    removed = old.join(links, on=keys, how="anti")
    with lake.write(MEMORY_PARTITION) as w:
        for rel in RELS.values():
            part = merged.filter(pl.col("rel") == rel).select(
                "src", "dst", pl.lit("Memory").alias("src_label"), pl.col("dst_label"), "repo",
                "relevance_score", "context", "linked_at",
            )
            w.write(rel, part.to_arrow().cast(lake_schema(rel)))
    return added, removed


def backfill_links(lake: Lake, now: datetime | None = None) -> BackfillStats:
    """Recompute the links of every memory in the lake and write them (see the module doc)."""
    started = time.perf_counter()
    now = now or datetime.now(timezone.utc)
    rows = read_memories(lake)
    memories = memory_frame(rows)
    code = code_index(lake)
    result = link_memories(memories, code)
    added, removed = write_links(lake, result.links, now)
    conversations = write_conversations(lake, rows, code)
    return BackfillStats(
        memories=memories.height, links=result.links.height, added=added.height, removed=removed.height,
        by_rel=dict(result.links.group_by("rel").len().sort("rel").iter_rows()) if result.links.height else {},
        by_rule=result.by_rule() if result.links.height else {},
        failures=len(result.failures),
        failure_sample=[f"{m}: {r}" for m, r in result.failures[:SAMPLE]],
        added_sample=_describe(added), removed_sample=_describe(removed),
        conversations=conversations.to_dict(), seconds=time.perf_counter() - started,
    )


@dataclass(frozen=True)
class MemoryVectorStats:
    rows: int
    embedded_now: int
    upserted: int
    deleted: int


def sync_memory_vectors(lake: Lake, embedder: Embedder, cache_root: Path, store: VectorStore) -> MemoryVectorStats:
    """Embed the `memories` partition (cached by text hash) and make its vector rows match it."""
    emb = embed_repo(lake, MEMORY_PARTITION, embedder, cache_root)
    rows = vector_rows(lake, MEMORY_PARTITION)
    if rows.num_columns == 0 and not store.exists():
        return MemoryVectorStats(emb.rows, emb.embedded_now, 0, 0)
    up = store.upsert_repo(MEMORY_PARTITION, rows if rows.num_columns else pa.table({}))
    return MemoryVectorStats(emb.rows, emb.embedded_now, up.upserted, up.deleted)
