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
tables there in one commit; the graph build copies them. It streams: vectors read into one matrix
(`ltm.memory.memory_vectors`, a memmap when large), candidates as compact arrays, the rules judged
`BATCH_PAIRS` pairs at a time in cluster order and SIMILAR_TO written as judged (`EvolutionPass`),
so its memory is bounded by those settings rather than by the number of memories. An online add
judges the new memories against their nearest neighbours with the same function (`ltm.memory.online`).
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ltm.lake import Lake
from ltm.part_files import PartFiles
from ltm.memory.evolution_pass import EDGE_KEYS, Candidates, EvolutionPass, candidates
from ltm.memory.memory_vectors import read_vectors
from ltm.memory.neighbours import IN_PROCESS_MAX, Neighbour, nearest_in_lake, nearest_in_table
from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.similarity import normalize_rows, normalized
from ltm.memory.supersession import SIMILAR_LINKED_MIN
from ltm.schema import lake_schema

EVOLUTION_TABLES = ("SIMILAR_TO", "SUPERSEDES", "TRANSITIONED_TO")
LINK_TABLES = ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS")


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
    cols = [n for n in schema.names if n not in EDGE_KEYS]
    data = {c: [r[k] for r in rows] for k, c in enumerate(cols)}
    arrays = [pa.array(data[f.name] if f.name in data else [EDGE_KEYS[f.name]] * len(rows), type=f.type) for f in schema]
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
    p = EvolutionPass(memories, candidates(memories["id"], links, normalized(vectors)))
    similar = pl.from_arrow(pa.Table.from_batches(list(p.similar()), schema=lake_schema("SIMILAR_TO")))
    return Evolution(similar, pl.from_arrow(p.supersedes()), pl.from_arrow(p.transitions()),  # type: ignore[arg-type]
                     pairs_judged=p.pairs_judged)


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


def memories_of(lake: Lake) -> pl.DataFrame:
    """id, content, created_at and vector_id of every memory of the `memories` partition (each id once,
    its last row) but the turns of a conversation (the conversation graph orders those: a later
    turn does not supersede one)."""
    mem = pl.from_arrow(lake.read("Memory", MEMORY_PARTITION, columns=["id", "content", "created_at", "vector_id", "conversation"]))
    mem = mem.filter(pl.col("conversation").is_null()).drop("conversation")  # type: ignore[union-attr]
    return mem.unique("id", keep="last", maintain_order=True)  # type: ignore[union-attr]


@dataclass
class EvolutionStats:
    """What a batch run found."""

    memories: int = 0
    pairs_judged: int = 0
    edges: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def write_evolution(lake: Lake, memories: pl.DataFrame, links: pl.DataFrame, v: np.ndarray,
                    cand: Candidates | None = None) -> EvolutionStats:
    """Judge the candidate pairs of `memories` (id, content, created_at; `v` their unit-row vectors,
    possibly a memmap; `cand` their candidates when already found) and replace the three tables of
    the `memories` partition in one commit, SIMILAR_TO written batch by batch as it is judged."""
    started = time.perf_counter()
    p = EvolutionPass(memories, cand if cand is not None else candidates(memories["id"], links, v))
    with lake.write(MEMORY_PARTITION) as w:
        w.write("SIMILAR_TO", p.similar())
        w.write("SUPERSEDES", p.supersedes())
        w.write("TRANSITIONED_TO", p.transitions())
    return EvolutionStats(memories.height, p.pairs_judged, {t: w.rows[t] for t in EVOLUTION_TABLES},
                          time.perf_counter() - started)


def evolve_lake(lake: Lake) -> EvolutionStats:
    """Recompute the evolution edges of the `memories` partition and replace their tables (one
    commit), in memory bounded by the settings (`ltm.memory.memory_vectors`, `BATCH_PAIRS`): the
    vectors are read into a matrix (a memmap in a scratch folder under the lake when large)."""
    started = time.perf_counter()
    memories = memories_of(lake)
    with tempfile.TemporaryDirectory(prefix=".evolution-", dir=lake.root) as scratch:
        v = normalize_rows(read_vectors(lake, memories["vector_id"], scratch))
        stats = write_evolution(lake, memories.drop("vector_id"), memory_links(lake), v)
        del v  # the memmap's file goes with the folder
    stats.seconds = time.perf_counter() - started
    return stats


def evolve_added(lake: Lake, table, rows: list[dict], vectors: np.ndarray, links: pl.DataFrame,
                 stored: int | None = None) -> Evolution:
    """The evolution edges of memories being added online (`rows`: Memory lake rows, `vectors`
    theirs) against their nearest stored memories of the `memories` partition
    (`ltm.memory.neighbours`: held in this process when `stored`, the partition's size, is at most
    `IN_PROCESS_MAX`, else from the LanceDB `table`; None: no table yet), judged by `evolve`, the
    batch's function: only edges that touch a new memory come back; the next batch recomputes them
    all."""
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
    old_links = memory_links_cached(lake).filter(pl.col("src").is_in(list(found))) if found else links.select("src", "dst").clear()
    new_links = links.select("src", "dst") if links.height else old_links.clear()
    # The batch's own function over the new memories and their neighbours (their pairs among
    # themselves too: a chain of older versions decides where the new TRANSITIONED_TO starts).
    result = evolve(frame, pl.concat([new_links, old_links], how="vertical"), vectors=v)
    touches = pl.col("src").is_in(new_ids) | pl.col("dst").is_in(new_ids)
    return Evolution(*(df.filter(touches) for df in result.tables().values()), pairs_judged=result.pairs_judged)
