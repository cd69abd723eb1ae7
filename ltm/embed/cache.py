"""The embedding cache: (model, dimension, text hash) -> vector, in one sqlite file per model.

Each finished batch is committed, so a crash resumes where it stopped and an unchanged text is
never embedded twice.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from ltm import progress
from ltm.embed.base import Embedder, plan_batches
from ltm.errors import BatchFailedError


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


def plan_requests(embedder: Embedder, texts: list[str]) -> tuple[list[str], list[list[int]]]:
    """The texts as sent (a provider may cut them to its token budget) and the batches of their indices."""
    plan = getattr(embedder, "plan", None)
    if plan is not None:
        return plan(texts)
    return texts, plan_batches(texts, embedder.batch_size)


def embed_with_cache(
    embedder: Embedder,
    cache: EmbeddingCache,
    hashes: list[str],
    texts: list[str],
    on_batch: Callable[[int], None] | None = None,
) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for every distinct text hash; returns them and how many texts were embedded now.

    Only texts missing from the cache are sent, in the provider's batches (`concurrency` at a
    time); each finished batch is committed to the cache at once, so after a failure or a crash
    the next run sends only what is still missing. A batch that fails for good does not stop the
    others (unless the error is not retryable, e.g. a bad key); at the end one error says how
    many batches and tries failed.
    """
    vectors = cache.get_many(sorted(set(hashes)))
    todo: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in vectors:
            todo.setdefault(h, t)
    keys = list(todo)
    sent, batches = plan_requests(embedder, [todo[k] for k in keys])
    failures: list[BatchFailedError] = []

    def run(batch: list[int]) -> tuple[list[int], np.ndarray]:
        return batch, embedder.embed([sent[i] for i in batch])

    bar = progress.tracker("embeddings", len(sent), "texts")

    def done(batch: list[int], out: np.ndarray) -> None:
        items = [(keys[i], out[j]) for j, i in enumerate(batch)]
        cache.put_many(items)  # the sqlite connection stays on this thread
        vectors.update(items)
        bar.advance(len(batch))
        if on_batch:
            on_batch(len(batch))

    workers = max(1, int(getattr(embedder, "concurrency", 1)))
    if workers == 1:
        for batch in batches:
            try:
                done(*run(batch))
            except BatchFailedError as e:
                failures.append(e)
                if not e.retryable:
                    break
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="embed") as pool:
            futures = [pool.submit(run, b) for b in batches]
            for fut in as_completed(futures):
                if fut.cancelled():
                    continue
                try:
                    done(*fut.result())
                except BatchFailedError as e:
                    failures.append(e)
                    if not e.retryable:
                        for f in futures:
                            f.cancel()
    bar.close()
    if failures:
        finished = sum(1 for h in keys if h in vectors)
        raise BatchFailedError(
            f"{len(failures)} of {len(batches)} embedding batches failed after {sum(e.tries for e in failures)} "
            f"tries in all ({finished} of {len(keys)} new texts are cached; run again to send only the rest): "
            f"{failures[-1]}",
            tries=sum(e.tries for e in failures),
            retryable=all(e.retryable for e in failures),
        )
    return vectors, len(keys)
