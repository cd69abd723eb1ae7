"""Retrieval: `HybridLTM(home).query(text)` over the vectors, with graph context from Kuzu.

The query is embedded with the model recorded on the vector table, never another.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltm.embed.providers import LOCAL_MODEL, Embedder, HashEmbedder, make_embedder
from ltm.errors import EmbeddingError, NotIngestedError
from ltm.home import Home
from ltm.vectors import VectorStore


def embedder_for_model(model: str, dim: int) -> Embedder:
    """The provider that produced vectors of `model`, to embed queries the same way."""
    if model.startswith("hash-"):
        return HashEmbedder(dim)
    if model == LOCAL_MODEL:
        return make_embedder("local")
    if model.startswith("ltm-static/"):
        return make_embedder("static")
    name, _, dims = model.partition("@")
    emb = make_embedder("openai", model=name, dimensions=int(dims) if dims else None)
    if dims == "" and emb.dim != dim:
        raise EmbeddingError(f"{model} now returns dimension {emb.dim}, the table holds {dim}")
    return emb


class HybridLTM:
    """The retrieval API over one home."""

    def __init__(self, home: str | Path | Home | None = None):
        self.home = home if isinstance(home, Home) else Home.resolve(home).require()
        self.vectors = VectorStore(self.home.vectors)
        self._embedder: Embedder | None = None

    def _query_embedder(self) -> Embedder:
        if self._embedder is None:
            meta = self.vectors.model()
            if meta is None:
                raise NotIngestedError(f"no vectors in {self.home.root}: run `ltm ingest PATH` first")
            self._embedder = embedder_for_model(meta["model"], meta["dim"])
        return self._embedder

    def query(self, text: str, top_k: int = 10) -> list[dict[str, Any]]:
        """The `top_k` entries nearest in meaning to `text` (vector search)."""
        if not self.vectors.exists():
            return []
        vec = self._query_embedder().embed([text])[0]
        hits = self.vectors.search(vec, top_k)
        return [
            {
                "graph_entity_id": h["graph_entity_id"],
                "vector_id": h["vector_id"],
                "label": h["label"],
                "category": h["category"],
                "repo": h["repo"],
                "file_path": h["file_path"],
                "line_start": h["line_start"],
                "line_end": h["line_end"],
                "score": round(1.0 - float(h["_distance"]), 6),
                "content": h["content"],
            }
            for h in hits
        ]

    def add(self, content: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """Store one memory online; returns {"vector_id", "graph_entity_id", ...} (`ltm.memory.online`)."""
        from ltm.memory.online import add_memory

        return add_memory(self.home, content, metadata)
