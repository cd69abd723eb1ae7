"""Reciprocal-rank fusion: one score from several ranked lists, robust to their different scales."""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60


def rrf(lists: Sequence[tuple[Sequence[str], float]], k: int = RRF_K) -> dict[str, float]:
    """id -> sum over lists of weight / (k + rank), rank starting at 1; ids keep first-seen order."""
    scores: dict[str, float] = {}
    for ids, weight in lists:
        for rank, i in enumerate(dict.fromkeys(ids), start=1):
            scores[i] = scores.get(i, 0.0) + weight / (k + rank)
    return scores


def ranked(scores: dict[str, float]) -> list[str]:
    """Ids by descending score (ties keep insertion order)."""
    return sorted(scores, key=lambda i: -scores[i])
