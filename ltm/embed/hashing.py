"""The `hash` provider: deterministic bag-of-words hashing vectors, for tests of other stages."""

from __future__ import annotations

import hashlib

import numpy as np

from ltm.embed.base import Usage


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
