"""The embedding stage: every embedded node of a repository gets a vector in the lake."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from ltm import ids
from ltm.embed.cache import EmbeddingCache, embed_with_cache
from ltm.embed.providers import Embedder
from ltm.lake import Lake
from ltm.schema import EMBEDDINGS, NODE_TABLES


@dataclass(frozen=True)
class EmbedStats:
    rows: int
    embedded_now: int
    cache_hits: int
    model: str
    dim: int


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


def embed_repo(
    lake: Lake, repo: str, embedder: Embedder, cache_root: Path, on_batch: Callable[[int], None] | None = None
) -> EmbedStats:
    """Embed what is not cached yet and write the repository's `embeddings` lake table."""
    vids, texts = embedding_inputs(lake, repo)
    hashes = [ids.text_hash(t) for t in texts]
    cache = EmbeddingCache(cache_root, embedder.model_id, embedder.dim)
    try:
        vectors, embedded_now = embed_with_cache(embedder, cache, hashes, texts, on_batch)
    finally:
        cache.close()
    table = pa.table(
        {
            "vector_id": vids,
            "text_hash": hashes,
            "model": [embedder.model_id] * len(vids),
            "dim": pa.array([embedder.dim] * len(vids), pa.int32()),
            "vector": pa.array([vectors[h].tolist() for h in hashes], pa.list_(pa.float32())),
        },
        schema=EMBEDDINGS,
    )
    with lake.write(repo) as w:
        w.write("embeddings", table)
    return EmbedStats(len(vids), embedded_now, len(set(hashes)) - embedded_now, embedder.model_id, embedder.dim)
