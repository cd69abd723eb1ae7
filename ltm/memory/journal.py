"""The online add's journal: an add interrupted by a kill is finished or undone by the next one.

An online add writes two stores that cannot commit together: the lake (the source of truth: the
memory, its embedding and links, committed by renames with the Memory table last, so the memory
row is the lake's commit point) and then the LanceDB row. Before the lake commit it writes the
journal `<home>/state/online-add.json` (the ids and vector ids, flushed to disk); after the vector
row is written it removes it. Whoever next holds the `memories` lock (the next add, `ltm reconcile`)
calls `recover`: a memory the lake holds gets its vector row (rolled forward), one it does not
loses any vector row, embedding, link, evolution and provenance rows the kill left (rolled back). So a kill at any point leaves the
memory stored in full or not at all, once `recover` ran; the graph is never written by an add.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ltm.atomic import replace_json
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory import provenance
from ltm.memory.evolution import EVOLUTION_TABLES
from ltm.memory.linking import RELS
from ltm.memory.records import MEMORY_PARTITION
from ltm.vectors import VectorStore, vector_rows

log = logging.getLogger(__name__)
# Every table of the memories partition whose rows an add writes before its Memory row.
_EDGE_TABLES = (*RELS.values(), *EVOLUTION_TABLES, provenance.REL)


def journal_path(home: Home) -> Path:
    return home.root / "state" / "online-add.json"


def begin(home: Home, rows: list[dict[str, Any]]) -> None:
    """Record the add about to write (the caller holds the `memories` lock)."""
    path = journal_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_json(path, {"ids": [r["id"] for r in rows], "vector_ids": [r["vector_id"] for r in rows]})


def end(home: Home) -> None:
    """The add is complete in every store."""
    journal_path(home).unlink(missing_ok=True)


def recover(home: Home, lake: Lake, store: VectorStore) -> dict[str, list[str]] | None:
    """Finish or undo an add a kill interrupted (the caller holds the `memories` lock).

    Returns {"completed": ids, "undone": ids}, or None when no add was interrupted.
    """
    path = journal_path(home)
    if not path.exists():
        return None
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        mem_ids, vids = list(entry["ids"]), list(entry["vector_ids"])
    except (ValueError, KeyError, TypeError):  # killed while the journal itself was written: nothing after it ran
        path.unlink(missing_ok=True)
        return {"completed": [], "undone": []}
    for table in ("Memory", "embeddings", *_EDGE_TABLES):
        lake.recover(table, MEMORY_PARTITION)  # a partition a kill left between two renames is put back
    in_lake = set(lake.read("Memory", MEMORY_PARTITION, columns=["id"]).column("id").to_pylist()) & set(mem_ids)
    done = [i for i in mem_ids if i in in_lake]
    undone = [i for i in mem_ids if i not in in_lake]
    with home.lock("vectors", timeout=600):
        if done and store.exists():
            table = vector_rows(lake, MEMORY_PARTITION)
            keep = pa.array([v for i, v in zip(mem_ids, vids) if i in in_lake], table.schema.field("vector_id").type)
            store.upsert_rows(table.filter(pc.is_in(table.column("vector_id"), value_set=keep)))
        gone = [v for i, v in zip(mem_ids, vids) if i not in in_lake]
        if gone and store.exists():
            store.delete_ids(gone)
    if undone:  # rows committed before the kill stopped the Memory table's commit
        gone_vids = [v for i, v in zip(mem_ids, vids) if i not in in_lake]
        with lake.write(MEMORY_PARTITION) as w:
            for rel in _EDGE_TABLES:
                edges = pl.from_arrow(lake.read(rel, MEMORY_PARTITION))
                w.write(rel, edges.filter(~pl.col("src").is_in(undone) & ~pl.col("dst").is_in(undone)).to_arrow(), redacted=True)
            emb = pl.from_arrow(lake.read("embeddings", MEMORY_PARTITION))
            w.write("embeddings", emb.filter(~pl.col("vector_id").is_in(gone_vids)).to_arrow(), redacted=True)
    path.unlink(missing_ok=True)
    log.warning("an online add interrupted by a kill was recovered: %d completed, %d undone", len(done), len(undone))
    return {"completed": done, "undone": undone}


def recover_home(home: Home) -> dict[str, list[str]] | None:
    """`recover` under the `memories` lock, for a caller that holds none (`ltm reconcile`); a no-op
    (no lock taken) when no add was interrupted."""
    if not journal_path(home).exists():
        return None
    with home.lock("memories", timeout=600):
        return recover(home, home.open_lake(), VectorStore(home.vectors))
