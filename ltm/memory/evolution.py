"""Memories that evolve: SIMILAR_TO, SUPERSEDES and TRANSITIONED_TO, a pure function of the memories.

`evolve(memories, links)` reads each memory's id, content, created_at and vector, and the code
entities it links to; candidate pairs come from `ltm.memory.similarity` (nearest neighbours and
shared linked code, never all pairs) and the rules of `ltm.memory.supersession` judge them:

- SIMILAR_TO newer -> older (the same created_at: the larger id is "newer"): `weight` the cosine,
  `contradicts` whether the newer one says otherwise, `reason` the rule;
- SUPERSEDES newer -> older for every contradicting pair whose newer one is strictly later:
  `reason`, `temporal_delta` (seconds) (every older version, so one wrong step cannot leave an
  old value current);
- TRANSITIONED_TO older -> newer along the direct steps of SUPERSEDES (C -> B -> A, not C -> A)
  where both carry values: `subject`, `from_value`, `to_value`, `turn` (1 for the subject's
  first change, 2 for the next, ...).

The batch (`evolve_lake`) recomputes all three from the lake's `memories` partition (imported and
online memories; documentation chunks follow their files, and conversation turns their
conversation, not each other) and replaces their
tables there in one commit; the graph build copies them. An online add judges the new memories
against their nearest neighbours with the same function (`ltm.memory.online`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ltm.lake import Lake
from ltm.part_files import PartFiles
from ltm.memory.neighbours import IN_PROCESS_MAX, Neighbour, nearest_in_lake, nearest_in_table
from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.similarity import group_pairs, top_pairs, vector_pairs
from ltm.memory.supersession import (
    SIMILAR_LINKED_MIN, SIMILAR_MIN, Facts, judge, read_facts, transitive_reduction, value_change,
)
from ltm.schema import lake_schema

EVOLUTION_TABLES = ("SIMILAR_TO", "SUPERSEDES", "TRANSITIONED_TO")
LINK_TABLES = ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS")
_KEYS = {"src_label": "Memory", "dst_label": "Memory", "repo": MEMORY_PARTITION.removeprefix("repo=")}


@dataclass
class Evolution:
    """The three edge tables, in their lake columns (src, dst, src_label, dst_label, repo, props)."""

    similar: pl.DataFrame
    supersedes: pl.DataFrame
    transitions: pl.DataFrame
    pairs_judged: int = 0

    def tables(self) -> dict[str, pl.DataFrame]:
        return {"SIMILAR_TO": self.similar, "SUPERSEDES": self.supersedes, "TRANSITIONED_TO": self.transitions}


def _frame(rows: list[tuple], table: str) -> pl.DataFrame:
    """`rows` (the table's columns but the keys, in schema order) as a frame of the lake schema."""
    schema = lake_schema(table)
    cols = [n for n in schema.names if n not in _KEYS]
    data = {c: [r[k] for r in rows] for k, c in enumerate(cols)}
    arrays = [pa.array(data[f.name] if f.name in data else [_KEYS[f.name]] * len(rows), type=f.type) for f in schema]
    return pl.from_arrow(pa.Table.from_arrays(arrays, schema=schema))  # type: ignore[return-value]


def _vectors(memories: pl.DataFrame) -> np.ndarray:
    """One row per memory; a memory without a vector (or of another dimension) is a zero row."""
    col = memories["vector"]
    lens = col.list.len().fill_null(0).to_numpy()
    found = lens[lens > 0]
    dim = int(np.bincount(found).argmax()) if found.size else 1
    out = np.zeros((memories.height, dim), dtype=np.float32)
    ok = lens == dim
    if ok.any():
        out[ok] = col.filter(pl.Series(ok)).explode().cast(pl.Float32).to_numpy().reshape(-1, dim)
    return out


def _candidates(memories: pl.DataFrame, links: pl.DataFrame, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate pairs (i < j), their cosines, and whether they share linked code."""
    n = memories.height
    ij, cos = vector_pairs(v)
    shared = np.empty((0, 2), dtype=np.int64)
    if links.height:
        pos = pl.DataFrame({"src": memories["id"], "i": np.arange(n)})
        grouped = links.select("src", "dst").unique().join(pos, on="src").group_by("dst").agg("i")
        gij, gcos = group_pairs([np.asarray(g) for g in grouped["i"].to_list()], v)
        shared = gij
        ij, cos = np.concatenate([ij, gij]), np.concatenate([cos, gcos])
        _, first = np.unique(ij[:, 0] * n + ij[:, 1], return_index=True)
        ij, cos = ij[first], cos[first]
    keep = top_pairs(n, ij, cos)
    ij, cos = ij[keep], cos[keep]
    is_shared = np.isin(ij[:, 0] * n + ij[:, 1], shared[:, 0] * n + shared[:, 1]) if shared.size else np.zeros(len(ij), bool)
    return ij, cos, is_shared


def evolve(memories: pl.DataFrame, links: pl.DataFrame | None = None, vectors: np.ndarray | None = None) -> Evolution:
    """The evolution edges of `memories` (columns id, content, created_at, vector) given their code
    links (`links`: src memory id, dst entity id); see the module doc. `vectors`, one row per
    memory, stand in for the `vector` column (ids must then be unique)."""
    links = links if links is not None else pl.DataFrame(schema={"src": pl.String, "dst": pl.String})
    if vectors is None:
        memories = memories.unique("id", keep="last", maintain_order=True)
        vectors = _vectors(memories)
    if memories.height < 2:
        return Evolution(_frame([], "SIMILAR_TO"), _frame([], "SUPERSEDES"), _frame([], "TRANSITIONED_TO"))
    return judge_pairs(memories, *_candidates(memories, links, vectors))


# Facts of a text, kept across calls: an online add judges the same stored neighbours again and again.
_facts_of = lru_cache(maxsize=16_384)(read_facts)


def judge_pairs(memories: pl.DataFrame, ij: np.ndarray, cos: np.ndarray, shared: np.ndarray) -> Evolution:
    """The edges of candidate pairs (row indices i < j of `memories`, their cosines, whether they
    share linked code), judged by `ltm.memory.supersession`."""
    ids, texts = memories["id"].to_list(), memories["content"].to_list()
    when: list[datetime | None] = memories["created_at"].to_list()
    close = cos >= np.where(shared, SIMILAR_LINKED_MIN, SIMILAR_MIN)  # the rules' first test, for all pairs at once
    ij, cos, shared = ij[close], cos[close], shared[close]

    @lru_cache(maxsize=None)
    def facts(i: int) -> Facts:
        return _facts_of(texts[i])

    def newer_first(i: int, j: int) -> tuple[int, int]:
        a, b = when[i], when[j]
        if a is not None and b is not None and a != b:
            return (i, j) if a > b else (j, i)
        return (i, j) if ids[i] > ids[j] else (j, i)

    similar, contra = [], {}
    for (i, j), c, s in zip(ij.tolist(), cos.tolist(), shared.tolist()):
        n, o = newer_first(i, j)
        verdict = judge(facts(n), facts(o), c, s)
        if not verdict.similar:
            continue
        similar.append((ids[n], ids[o], round(c, 4), verdict.contradicts, verdict.reason))
        if verdict.contradicts and when[n] is not None and when[o] is not None and when[n] > when[o]:
            contra[(n, o)] = verdict.reason
    supersedes = [(ids[n], ids[o], contra[(n, o)], int((when[n] - when[o]).total_seconds())) for n, o in sorted(contra)]
    kept = transitive_reduction(set(contra))
    below: dict[int, list[int]] = {}
    for n, o in kept:
        below.setdefault(n, []).append(o)

    @lru_cache(maxsize=None)
    def depth(i: int) -> int:  # the longest chain of older versions under i (chains are acyclic: time)
        return max((1 + depth(o) for o in below.get(i, ())), default=0)

    transitions = []
    for n, o in sorted(kept):
        fn, fo = facts(n), facts(o)
        if fn.values and fo.values:
            was, now = value_change(fo, fn)
            subject = " ".join(sorted(fn.subject & fo.subject)[:8])
            transitions.append((ids[o], ids[n], subject, was, now, depth(o) + 1))
    return Evolution(_frame(similar, "SIMILAR_TO"), _frame(supersedes, "SUPERSEDES"),
                     _frame(transitions, "TRANSITIONED_TO"), pairs_judged=int(ij.shape[0]))


def memory_links(lake: Lake) -> pl.DataFrame:
    """(src, dst) of the code links of the `memories` partition."""
    parts = [pl.from_arrow(lake.read(t, MEMORY_PARTITION, columns=["src", "dst"])) for t in LINK_TABLES]
    return pl.concat(parts, how="vertical")  # type: ignore[arg-type]


_LINK_FILES: dict[tuple[str, str], PartFiles[pl.DataFrame]] = {}  # (lake root, table) -> its part files


def memory_links_cached(lake: Lake) -> pl.DataFrame:
    """`memory_links`, re-reading only the part files that changed since the last call in this
    process: an online add appends one small part file per table, so the next add reads that alone."""
    frames = []
    for t in LINK_TABLES:
        files = _LINK_FILES.setdefault((str(lake.root), t), PartFiles(
            lake.root / t / f"repo={MEMORY_PARTITION}",
            lambda f: pl.from_arrow(pq.read_table(f, columns=["src", "dst"]))))  # type: ignore[arg-type,return-value]
        files.refresh()
        frames += files.values()
    return pl.concat(frames, how="vertical") if frames else memory_links(lake)


def memories_with_vectors(lake: Lake) -> pl.DataFrame:
    """id, content, created_at and vector of every memory of the `memories` partition but the turns
    of a conversation (the conversation graph orders those: a later turn does not supersede one)."""
    mem = pl.from_arrow(lake.read("Memory", MEMORY_PARTITION, columns=["id", "content", "created_at", "vector_id", "conversation"]))
    mem = mem.filter(pl.col("conversation").is_null()).drop("conversation")  # type: ignore[union-attr]
    emb = pl.from_arrow(lake.read("embeddings", MEMORY_PARTITION, columns=["vector_id", "vector"]))
    emb = emb.unique("vector_id", keep="last")  # type: ignore[union-attr]
    return mem.join(emb, on="vector_id", how="left").select("id", "content", "created_at", "vector")  # type: ignore[union-attr]


@dataclass
class EvolutionStats:
    """What a batch run found."""

    memories: int = 0
    pairs_judged: int = 0
    edges: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def evolve_lake(lake: Lake) -> EvolutionStats:
    """Recompute the evolution edges of the `memories` partition and replace their tables (one commit)."""
    started = time.perf_counter()
    memories = memories_with_vectors(lake)
    result = evolve(memories, memory_links(lake))
    with lake.write(MEMORY_PARTITION) as w:
        for table, df in result.tables().items():
            w.write(table, df.sort("src", "dst").to_arrow().cast(lake_schema(table)))
    return EvolutionStats(memories.height, result.pairs_judged,
                          {t: df.height for t, df in result.tables().items()}, time.perf_counter() - started)


def evolve_added(lake: Lake, table, rows: list[dict], vectors: np.ndarray, links: pl.DataFrame,
                 stored: int | None = None) -> Evolution:
    """The evolution edges of memories being added online (`rows`: Memory lake rows, `vectors`
    theirs) against their nearest stored memories of the `memories` partition
    (`ltm.memory.neighbours`: held in this process when `stored`, the partition's size, is at most
    `IN_PROCESS_MAX`, else from the LanceDB `table`; None: no table yet), judged by the batch's
    rules (`judge_pairs`) on every pair of them: only edges that touch a new memory come back; the
    next batch recomputes them all."""
    new_ids = [r["id"] for r in rows]
    exclude = set(new_ids)
    found: dict[str, Neighbour] = {}
    in_process = stored is not None and stored <= IN_PROCESS_MAX
    if in_process or table is not None:
        for v in vectors:
            # below the loosest similarity the rules accept, a neighbour cannot be judged similar
            near = (nearest_in_lake(lake, v, exclude, SIMILAR_LINKED_MIN) if in_process
                    else nearest_in_table(table, v, exclude, SIMILAR_LINKED_MIN))
            found.update((n.id, n) for n in near if n.id not in found)
    if not found and len(rows) < 2:  # nothing close enough: no edge to judge, no link file to read
        return Evolution(_frame([], "SIMILAR_TO"), _frame([], "SUPERSEDES"), _frame([], "TRANSITIONED_TO"))
    ids = new_ids + list(found)
    frame = pl.DataFrame({
        "id": ids,
        "content": [r["content"] for r in rows] + [n.content for n in found.values()],
        "created_at": [r["created_at"] for r in rows] + [n.created_at for n in found.values()],
    }, schema={"id": pl.String, "content": pl.String, "created_at": pl.Datetime("us", "UTC")})
    v = np.vstack([np.asarray(vectors, dtype=np.float32).reshape(len(rows), -1)] + [n.vector[None, :] for n in found.values()])
    v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    # Every pair, the neighbours' among themselves too: a chain of older versions (B -> C) decides
    # which of them the new memory's TRANSITIONED_TO starts from, and its turn.
    n = len(ids)
    ij = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int64).reshape(-1, 2)
    cos = np.einsum("ij,ij->i", v[ij[:, 0]], v[ij[:, 1]]) if ij.size else np.empty(0)
    linked: dict[str, set[str]] = {}
    old_links = memory_links_cached(lake).filter(pl.col("src").is_in(list(found))) if found else None
    for src, dst in (links.select("src", "dst").iter_rows() if links.height else ()):
        linked.setdefault(src, set()).add(dst)
    for src, dst in (old_links.iter_rows() if old_links is not None else ()):
        linked.setdefault(src, set()).add(dst)
    shared = np.array([bool(linked.get(ids[i], set()) & linked.get(ids[j], set())) for i, j in ij.tolist()], dtype=bool)
    result = judge_pairs(frame, ij, cos, shared)
    touches = pl.col("src").is_in(new_ids) | pl.col("dst").is_in(new_ids)
    return Evolution(*(df.filter(touches) for df in result.tables().values()), pairs_judged=result.pairs_judged)
