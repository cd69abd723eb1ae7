"""What every embedding provider offers: the `Embedder` protocol, its `Usage` ledger, batching.

Every provider has a `model_id` (recorded on each vector row), a `dim`, a `batch_size`, a `usage`
ledger and `embed(texts)` returning a float32 array of shape (len(texts), dim). A provider may
also offer `plan(texts)` (its own batching, e.g. by token budget) and a `concurrency` above 1.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


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
