"""Candidate pairs of similar memories, found without comparing all pairs.

Two sources, neither comparing all pairs:
- nearest neighbours on the vectors, as an inverted-file index finds them: spherical k-means
  centroids (one per `CLUSTER_SIZE` memories, trained on a seeded sample, so every run draws the
  same), each memory joins its nearest cluster (and the second nearest when it is about as near,
  `PROBE_MARGIN`), and pairs are compared inside a cluster only (matrix products, about
  n x CLUSTER_SIZE in all). A memory's close neighbours
  sit near the same centroid, so they meet; up to `BRUTE_MAX` memories make one cluster;
- memories linked to the same code entity (`shared` groups), for groups of at most `MAX_GROUP`
  memories (an entity half the memories link to says nothing about any two of them).
Each memory keeps its `TOP_K` best pairs at cosine `MIN_COSINE` or more (a pair stays when it is
among the best of either side).
"""

from __future__ import annotations

import numpy as np

CLUSTER_SIZE = 500  # memories per cluster on average: about n x CLUSTER_SIZE products in all
PROBE_MARGIN = 0.05  # a memory joins its second nearest cluster too when that one is this close
TRAIN_ITERATIONS = 8
TRAIN_SAMPLE = 64  # memories per cluster the centroids are trained on
BRUTE_MAX = 2048  # up to this many memories, one cluster: every pair (cheaper than training)
TOP_K = 10
MIN_COSINE = 0.4
MAX_GROUP = 64
SEED = 19
_ROWS = 4096  # rows of a product computed at once


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def _centroids(v: np.ndarray, k: int) -> np.ndarray:
    """k spherical k-means centroids trained on a seeded sample of the rows."""
    rng = np.random.default_rng(SEED)
    sample = v[rng.choice(v.shape[0], size=min(v.shape[0], k * TRAIN_SAMPLE), replace=False)]
    cent = sample[rng.choice(sample.shape[0], size=k, replace=False)].copy()
    for _ in range(TRAIN_ITERATIONS):
        near = np.concatenate([np.argmax(sample[s:s + _ROWS] @ cent.T, axis=1) for s in range(0, sample.shape[0], _ROWS)])
        sums = np.zeros_like(cent)
        np.add.at(sums, near, sample)
        empty = ~sums.any(axis=1)
        sums[empty] = cent[empty]  # a centroid nobody chose stays where it was
        cent = normalized(sums)
    return cent


def _members(v: np.ndarray, cent: np.ndarray) -> list[np.ndarray]:
    """The row indices of each cluster: every row joins its nearest centroid, and its second
    nearest when that one is within `PROBE_MARGIN` (a row near a border meets both sides)."""
    k = cent.shape[0]
    rows, owners = [], []
    for s in range(0, v.shape[0], _ROWS):
        sc = v[s:s + _ROWS] @ cent.T
        top = np.argpartition(-sc, 1, axis=1)[:, :2]
        first = np.take_along_axis(sc, top, axis=1)
        swap = first[:, 1] > first[:, 0]
        top[swap] = top[swap][:, ::-1]
        first[swap] = first[swap][:, ::-1]
        near = first[:, 1] >= first[:, 0] - PROBE_MARGIN
        idx = np.arange(s, s + sc.shape[0])
        rows += [idx, idx[near]]
        owners += [top[:, 0], top[near, 1]]
    own, rows = np.concatenate(owners), np.concatenate(rows)
    order = np.argsort(own, kind="stable")
    bounds = np.searchsorted(own[order], np.arange(k + 1))
    return [rows[order[bounds[c]:bounds[c + 1]]] for c in range(k)]


def _cluster_pairs(v: np.ndarray, idx: np.ndarray, min_cosine: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each member's `k` best partners inside one cluster at `min_cosine` or more."""
    x = v[idx]
    s = idx.size
    kk = min(k, s - 1)
    pairs, cosines = [], []
    for r in range(0, s, _ROWS):
        g = x[r:r + _ROWS] @ x.T
        g[np.arange(g.shape[0]), np.arange(r, r + g.shape[0])] = -2.0  # not itself
        best = np.argpartition(-g, kk - 1, axis=1)[:, :kk] if kk < s else np.argsort(-g, axis=1)[:, :kk]
        c = np.take_along_axis(g, best, axis=1)
        a, b = np.nonzero(c >= min_cosine)
        pairs.append(np.stack([idx[r + a], idx[best[a, b]]], axis=1))
        cosines.append(c[a, b].astype(np.float64))
    return np.concatenate(pairs), np.concatenate(cosines)


def vector_pairs(vectors: np.ndarray, min_cosine: float = MIN_COSINE, k: int = TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """Each memory's nearest neighbours by clusters (see the module doc): (pairs (m, 2) with
    i < j, cosines (m,)), at `min_cosine` or more, at most `k` found per memory."""
    v = normalized(vectors)
    n = v.shape[0]
    if n < 2:
        return np.empty((0, 2), dtype=np.int64), np.empty(0)
    if n <= BRUTE_MAX:
        clusters = [np.arange(n)]
    else:
        clusters = _members(v, _centroids(v, max(2, n // CLUSTER_SIZE)))
    found, cosines = [], []
    for idx in clusters:
        if idx.size >= 2:
            ij, cos = _cluster_pairs(v, idx, min_cosine, k)
            found.append(ij)
            cosines.append(cos)
    if not found:
        return np.empty((0, 2), dtype=np.int64), np.empty(0)
    ij = np.sort(np.concatenate(found).astype(np.int64), axis=1)
    cos = np.concatenate(cosines)
    _, first = np.unique(ij[:, 0] * n + ij[:, 1], return_index=True)
    return ij[first], cos[first]


def group_pairs(groups: list[np.ndarray], vectors: np.ndarray, max_group: int = MAX_GROUP) -> tuple[np.ndarray, np.ndarray]:
    """Every pair inside each group of memory indices (groups larger than `max_group` skipped), with cosines."""
    v = normalized(vectors)
    rows = []
    for g in groups:
        g = np.unique(g)
        if 2 <= g.size <= max_group:
            a, b = np.triu_indices(g.size, k=1)
            rows.append(np.stack([g[a], g[b]], axis=1))
    if not rows:
        return np.empty((0, 2), dtype=np.int64), np.empty(0)
    ij = np.unique(np.concatenate(rows).astype(np.int64), axis=0)
    return ij, np.einsum("ij,ij->i", v[ij[:, 0]], v[ij[:, 1]]).astype(np.float64)


def top_pairs(n: int, ij: np.ndarray, cos: np.ndarray, k: int = TOP_K) -> np.ndarray:
    """Indices of the pairs among the `k` best of either of their two memories."""
    if ij.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    keep = np.zeros(ij.shape[0], dtype=bool)
    for side in (0, 1):
        order = np.lexsort((-cos, ij[:, side]))
        owner = ij[order, side]
        start = np.searchsorted(owner, owner, side="left")
        rank = np.arange(order.size) - start
        keep[order[rank < k]] = True
    return np.nonzero(keep)[0]
