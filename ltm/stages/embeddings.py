"""The embeddings stage: every embedded node of a repository gets a vector in the lake.

It also owns the rows of the `embeddings` lake table (`embeddings_table`), which the memories
written online use too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ltm import ids
from ltm.embed.cache import EmbeddingCache, embed_with_cache
from ltm.embed.base import Embedder
from ltm.errors import DimensionMismatchError
from ltm.lake import Lake
from ltm.schema import EMBEDDINGS, NODE_TABLES


@dataclass(frozen=True)
class EmbedStats:
    """What one run of the embeddings stage embedded, reused and wrote."""

    repo: str
    rows: int
    embedded_now: int
    cache_hits: int
    model: str
    dim: int
    seconds: float = 0.0
    requests: int = 0
    retries: int = 0
    tokens: int = 0
    truncated: int = 0
    cost_usd: float | None = None

    def metadata(self) -> dict[str, object]:
        """The figures an asset reports; tokens and dollars only for providers that bill them."""
        out: dict[str, object] = {
            "repo": self.repo, "rows": self.rows, "embedded_now": self.embedded_now, "cache_hits": self.cache_hits,
            "model": self.model, "dim": self.dim, "seconds": round(self.seconds, 3),
            "texts_per_s": round(self.embedded_now / self.seconds, 1) if self.seconds and self.embedded_now else 0.0,
            "requests": self.requests, "retries": self.retries, "truncated_inputs": self.truncated,
        }
        if self.cost_usd is not None:
            out.update(tokens=self.tokens, cost_usd=self.cost_usd)
        return out

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        return f"rows={self.rows} embedded_now={self.embedded_now} cache_hits={self.cache_hits}"


def embedding_inputs(lake: Lake, repo: str) -> tuple[list[str], list[str]]:
    """(vector_id, text) of every embedded node of a repository, in a stable order."""
    vids: list[str] = []
    texts: list[str] = []
    for label, table in NODE_TABLES.items():
        if not table.embedded:
            continue
        t = lake.read(label, repo, columns=["id", "vector_id", "text"])
        for eid, vid, text in zip(*(t.column(c).to_pylist() for c in ("id", "vector_id", "text"))):
            if vid:
                vids.append(vid)
                texts.append(text or eid)
    return vids, texts


def embeddings_table(vector_ids: list[str], text_hashes: list[str], model: str, dim: int, flat: np.ndarray) -> pa.Table:
    """Rows of the `embeddings` lake table; `flat` holds the vectors one after another (float32)."""
    n = len(vector_ids)
    return pa.table(
        {
            "vector_id": vector_ids,
            "text_hash": text_hashes,
            "model": [model] * n,
            "dim": pa.array([dim] * n, pa.int32()),
            "vector": pa.ListArray.from_arrays(pa.array(np.arange(0, flat.size + 1, dim or 1, dtype=np.int32)), pa.array(flat)),
        },
        schema=EMBEDDINGS,
    )


def embed_repo(
    lake: Lake, repo: str, embedder: Embedder, cache_root: Path, on_batch: Callable[[int], None] | None = None
) -> EmbedStats:
    """Embed what is not cached yet and write the repository's `embeddings` lake table."""
    started = time.perf_counter()
    vids, texts = embedding_inputs(lake, repo)
    hashes = [ids.text_hash(t) for t in texts]
    before = (embedder.usage.requests, embedder.usage.retries, embedder.usage.tokens, embedder.usage.truncated)
    cache = EmbeddingCache(cache_root, embedder.model_id, embedder.dim)
    try:
        vectors, embedded_now = embed_with_cache(embedder, cache, hashes, texts, on_batch)
    finally:
        cache.close()
    dim = embedder.dim
    flat = np.concatenate([vectors[h] for h in hashes]).astype(np.float32, copy=False) if hashes else np.zeros(0, np.float32)
    if flat.size != len(hashes) * dim:
        raise DimensionMismatchError(
            f"cached vectors of {embedder.model_id} do not all have dimension {dim}: remove {cache.path} and run again"
        )
    with lake.write(repo) as w:
        w.write("embeddings", embeddings_table(vids, hashes, embedder.model_id, dim, flat))
    u = embedder.usage
    requests, retries, tokens, truncated = (a - b for a, b in zip((u.requests, u.retries, u.tokens, u.truncated), before))
    cost = getattr(embedder, "price", None)
    return EmbedStats(
        repo, len(vids), embedded_now, len(set(hashes)) - embedded_now, embedder.model_id, dim,
        seconds=time.perf_counter() - started, requests=requests, retries=retries, tokens=tokens, truncated=truncated,
        cost_usd=None if cost is None else round(tokens * cost / 1_000_000, 9),
    )
