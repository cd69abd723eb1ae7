"""The nearest stored memories of a new one, for an online add's judging (`ltm.memory.evolution`).

An online add judges each new memory against its `NEIGHBOURS` nearest stored memories of the
`memories` partition. Up to `IN_PROCESS_MAX` stored memories the search runs over their vectors
held in this process: exact (it never misses a neighbour, as an index probe can), about 1 ms
against 5-8 ms for a LanceDB query on a 100,000-row table, and it sees what the batch judges
(the lake's memories, conversation turns left out). Each part file of the partition is read once
(`ltm.part_files`), so a warm process (the MCP server) reads only the files the last add wrote.
Above the limit the LanceDB table's vector index answers instead.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow.parquet as pq

from ltm.blas_threads import one_blas_thread
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.part_files import PartFiles

NEIGHBOURS = 10  # stored memories an online add is judged against, per new memory
IN_PROCESS_MAX = 20_000  # stored memories up to which their vectors are held here (~30 MB at 384-d)


class Neighbour(NamedTuple):
    id: str
    content: str
    created_at: datetime | None
    vector: np.ndarray
    cosine: float


class _Vectors(NamedTuple):
    vector_ids: list[str]
    unit: np.ndarray  # one unit-length float32 row per vector id


def _read_vectors(path: Path) -> _Vectors:
    t = pq.read_table(path, columns=["vector_id", "vector"])
    vids = t.column("vector_id").to_pylist()
    flat = t.column("vector").combine_chunks()
    if not vids:
        return _Vectors([], np.zeros((0, 0), np.float32))
    lens = np.diff(flat.offsets.to_numpy())
    if (lens != lens[0]).any():  # vectors of two models in one file: a re-embed in progress
        raise ValueError(f"{path} holds vectors of more than one dimension")
    unit = flat.values.to_numpy(zero_copy_only=False).astype(np.float32).reshape(len(vids), int(lens[0]))
    unit /= np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
    return _Vectors(vids, unit)


def _read_memories(path: Path) -> dict[str, tuple[str, str, Any]]:
    t = pq.read_table(path, columns=["vector_id", "id", "content", "created_at", "conversation"])
    rows = zip(*(t.column(c).to_pylist() for c in ("vector_id", "id", "content", "created_at", "conversation")))
    # a conversation's turns are ordered by the conversation graph, never judged against other memories
    return {vid: (mid, content, when) for vid, mid, content, when, conv in rows if conv is None}


class StoredMemories:
    """The `memories` partition's vectors and texts in this process, refreshed per part file."""

    def __init__(self, lake: Lake):
        base = lake.root
        self._vectors = PartFiles(base / "embeddings" / f"repo={MEMORY_PARTITION}", _read_vectors)
        self._memories = PartFiles(base / "Memory" / f"repo={MEMORY_PARTITION}", _read_memories)

    def nearest(self, vector: np.ndarray, exclude: set[str], min_cosine: float) -> list[Neighbour]:
        """The `NEIGHBOURS` stored memories closest to `vector` at `min_cosine` or more, nearest first;
        `exclude`: memory ids left out (the memories being added)."""
        self._vectors.refresh()
        self._memories.refresh()
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        scored: dict[str, tuple[float, np.ndarray]] = {}
        want = NEIGHBOURS + len(exclude)
        with one_blas_thread():  # one vector against thousands: ltm.blas_threads
            cosines = [(chunk, chunk.unit @ q) for chunk in self._vectors.values()
                       if chunk.vector_ids and chunk.unit.shape[1] == q.size]
        for chunk, cos in cosines:  # later files (later adds) overwrite earlier ones
            top = np.argsort(-cos)[:want] if cos.size > want else np.arange(cos.size)
            for i in top[cos[top] >= min_cosine].tolist():
                scored[chunk.vector_ids[i]] = (float(cos[i]), chunk.unit[i])
        texts = list(reversed(self._memories.values()))
        out = []
        for vid, (cos, unit) in sorted(scored.items(), key=lambda kv: (-kv[1][0], kv[0])):  # ties: by id, so runs agree
            row = next((m[vid] for m in texts if vid in m), None)
            if row is not None and row[0] not in exclude:
                out.append(Neighbour(row[0], row[1], row[2], unit, cos))
                if len(out) == NEIGHBOURS:
                    break
        return out


_STORED: dict[str, StoredMemories] = {}  # lake root -> its memories, for the life of the process


def nearest_in_lake(lake: Lake, vector: np.ndarray, exclude: set[str], min_cosine: float) -> list[Neighbour]:
    """`StoredMemories.nearest` on this process's copy of the lake's memories."""
    stored = _STORED.setdefault(str(lake.root), StoredMemories(lake))
    return stored.nearest(vector, exclude, min_cosine)


def nearest_in_table(table, vector: np.ndarray, exclude: set[str], min_cosine: float) -> list[Neighbour]:
    """The same from the LanceDB `table`'s vector index (a large partition), searched as retrieval
    searches it (`ltm.vectors.nearest`)."""
    from ltm.vectors import nearest  # the store's module loads LanceDB, which a lake-only caller never needs

    hits = nearest(table, vector, NEIGHBOURS + len(exclude), "repo = 'memories'",
                   ["graph_entity_id", "content", "created_at", "vector"]).to_list()
    out = []
    for h in hits:
        cos = 1.0 - h["_distance"]
        if h["graph_entity_id"] and h["graph_entity_id"] not in exclude and cos >= min_cosine:
            out.append(Neighbour(h["graph_entity_id"], h["content"], h["created_at"], np.asarray(h["vector"], np.float32), cos))
    return out[:NEIGHBOURS]
