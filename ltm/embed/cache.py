"""The embedding cache: (model, dimension, text hash) -> vector, in one sqlite file per model.

Each finished batch is committed, so a crash resumes where it stopped and an unchanged text is
never embedded twice.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ltm.embed.providers import Embedder


class EmbeddingCache:
    """A persistent map from text hash to vector for one model and dimension."""

    def __init__(self, root: Path, model_id: str, dim: int):
        root.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)
        self.path = root / f"{safe}-{dim}.sqlite"
        self.dim = dim
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (text_hash TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def get_many(self, hashes: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(hashes), 500):
            chunk = hashes[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for h, blob in self._db.execute(f"SELECT text_hash, vector FROM vectors WHERE text_hash IN ({marks})", chunk):
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_many(self, items: list[tuple[str, np.ndarray]]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (text_hash, vector) VALUES (?, ?)",
                [(h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items],
            )

    def close(self) -> None:
        self._db.close()


def embed_with_cache(
    embedder: Embedder,
    cache: EmbeddingCache,
    hashes: list[str],
    texts: list[str],
    on_batch: Callable[[int], None] | None = None,
) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for every distinct text hash; returns them and how many texts were embedded now."""
    vectors = cache.get_many(sorted(set(hashes)))
    todo: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in vectors:
            todo.setdefault(h, t)
    pending = list(todo.items())
    for i in range(0, len(pending), embedder.batch_size):
        batch = pending[i : i + embedder.batch_size]
        out = embedder.embed([t for _, t in batch])
        items = [(h, out[j]) for j, (h, _) in enumerate(batch)]
        cache.put_many(items)
        vectors.update(items)
        if on_batch:
            on_batch(len(batch))
    return vectors, len(pending)
