"""Candidate pairs of similar memories, found without comparing all pairs, in bounded memory.

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

Memory: the vectors are read `_ROWS` rows at a time (a `numpy.memmap` on disk serves as well as
an array, see `normalize_rows`), one cluster's products at a time; what grows with the memories
is compact: pairs as int32 indices and float32 cosines (12 bytes a pair, about `TOP_K` pairs a
memory) and one int32 cluster label a memory.
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


def _empty() -> tuple[np.ndarray, np.ndarray]:
    return np.empty((0, 2), dtype=np.int32), np.empty(0, dtype=np.float32)


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)


def normalize_rows(v: np.ndarray) -> np.ndarray:
    """`v` (float32, e.g. a writable `numpy.memmap`) scaled to unit rows in place, `_ROWS` rows at a
    time: the same figures as `normalized`, without a second copy of the vectors."""
    for s in range(0, v.shape[0], _ROWS):
        v[s:s + _ROWS] = normalized(v[s:s + _ROWS])
    return v


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


def clusters(v: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """(the row indices of each cluster (int32), each row's nearest cluster (int32)) of unit rows
    `v`: one cluster up to `BRUTE_MAX` rows, else every row joins its nearest centroid, and its
    second nearest when that one is within `PROBE_MARGIN` (a row near a border meets both sides)."""
    n = v.shape[0]
    if n <= BRUTE_MAX:
        return [np.arange(n, dtype=np.int32)], np.zeros(n, dtype=np.int32)
    cent = _centroids(v, max(2, n // CLUSTER_SIZE))
    k = cent.shape[0]
    rows, owners, label = [], [], np.empty(n, dtype=np.int32)
    for s in range(0, n, _ROWS):
        sc = v[s:s + _ROWS] @ cent.T
        top = np.argpartition(-sc, 1, axis=1)[:, :2]
        first = np.take_along_axis(sc, top, axis=1)
        swap = first[:, 1] > first[:, 0]
        top[swap] = top[swap][:, ::-1]
        first[swap] = first[swap][:, ::-1]
        near = first[:, 1] >= first[:, 0] - PROBE_MARGIN
        idx = np.arange(s, s + sc.shape[0], dtype=np.int32)
        label[s:s + sc.shape[0]] = top[:, 0]
        rows += [idx, idx[near]]
        owners += [top[:, 0].astype(np.int32), top[near, 1].astype(np.int32)]
    own, rows = np.concatenate(owners), np.concatenate(rows)
    order = np.argsort(own, kind="stable")
    bounds = np.searchsorted(own[order], np.arange(k + 1))
    return [rows[order[bounds[c]:bounds[c + 1]]] for c in range(k)], label


def _cluster_pairs(v: np.ndarray, idx: np.ndarray, min_cosine: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each member's `k` best partners inside one cluster at `min_cosine` or more (i < j)."""
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
        pairs.append(np.sort(np.stack([idx[r + a], idx[best[a, b]]], axis=1), axis=1))
        cosines.append(c[a, b])
    return np.concatenate(pairs), np.concatenate(cosines)


def _first_of_each(ij: np.ndarray, cos: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pair once (its first occurrence), ordered by (i, j)."""
    _, first = np.unique(ij[:, 0].astype(np.int64) * n + ij[:, 1], return_index=True)
    return ij[first], cos[first]


def vector_pairs(v: np.ndarray, groups: list[np.ndarray] | None = None, min_cosine: float = MIN_COSINE,
                 k: int = TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """Each memory's nearest neighbours inside `groups` (`clusters(v)[0]` when None) of unit rows `v`
    (see the module doc): (pairs (m, 2) int32 with i < j, float32 cosines (m,)), at `min_cosine` or
    more, at most `k` found per memory."""
    n = v.shape[0]
    if n < 2:
        return _empty()
    found, cosines = [], []
    for idx in clusters(v)[0] if groups is None else groups:
        if idx.size >= 2:
            ij, cos = _cluster_pairs(v, idx, min_cosine, k)
            found.append(ij)
            cosines.append(cos)
    if not found:
        return _empty()
    return _first_of_each(np.concatenate(found), np.concatenate(cosines), n)


def group_pairs(groups: list[np.ndarray], v: np.ndarray, max_group: int = MAX_GROUP) -> tuple[np.ndarray, np.ndarray]:
    """Every pair inside each group of memory indices (groups larger than `max_group` skipped),
    with the cosines of unit rows `v`: (pairs int32, i < j, float32 cosines)."""
    rows = []
    for g in groups:
        g = np.unique(g)
        if 2 <= g.size <= max_group:
            a, b = np.triu_indices(g.size, k=1)
            rows.append(np.stack([g[a], g[b]], axis=1))
    if not rows:
        return _empty()
    ij = np.unique(np.concatenate(rows).astype(np.int32), axis=0)
    cos = np.concatenate([np.einsum("ij,ij->i", v[ij[s:s + _ROWS, 0]], v[ij[s:s + _ROWS, 1]])
                          for s in range(0, ij.shape[0], _ROWS)])
    return ij, cos.astype(np.float32)


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
