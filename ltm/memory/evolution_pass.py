"""The batch evolution pass over candidate pairs, in memory bounded by settings.

`candidates` finds the pairs to judge (`ltm.memory.similarity`: nearest neighbours in clusters
plus shared linked code, each memory's best `TOP_K`, as int32 indices and float32 cosines);
`near_best` keeps those close to the best of both their memories (a farther pair is judged only
when one of its texts says "from", "instead of", "replaced" or "no longer", and kept only as an
update that names the older's value as left); `EvolutionPass` judges them with
the rules (`ltm.memory.supersession.judge_batch`) `BATCH_PAIRS` at a time in cluster order, yields
SIMILAR_TO as it goes and builds SUPERSEDES and TRANSITIONED_TO from the contradicting pairs
(compact columns). `ltm.memory.evolution` runs it on a frame (`evolve`) or on the lake.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.similarity import clusters, group_pairs, top_pairs, vector_pairs
from ltm.memory.supersession import SIMILAR_LINKED_MIN, SIMILAR_MIN, judge_batch
from ltm.schema import lake_schema

EDGE_KEYS = {"src_label": "Memory", "dst_label": "Memory", "repo": MEMORY_PARTITION.removeprefix("repo=")}
NEAR_BEST: float | None = 0.2  # see `near_best` (set on the seen halves of the labelled set); None: off
LEFT_HINT = r"(?i)\b(?:from|instead of|replac\w*|no longer)\b"  # how a text names a value it left (a cheap first test)
BATCH_PAIRS = 50_000  # candidate pairs judged at once: the texts' facts and edge rows held at a time


@dataclass
class Candidates:
    """Candidate pairs (row indices i < j, int32), their cosines (float32), whether they share linked
    code, and each memory's nearest cluster (pairs are judged cluster by cluster)."""

    ij: np.ndarray
    cos: np.ndarray
    shared: np.ndarray
    label: np.ndarray


def candidates(ids: pl.Series, links: pl.DataFrame, v: np.ndarray) -> Candidates:
    """The candidate pairs of memories `ids` with unit-row vectors `v` (one row each) and code
    `links` (src memory id, dst entity id): nearest neighbours plus shared code, each memory's
    best `TOP_K` (`ltm.memory.similarity`)."""
    n = len(ids)
    groups, label = clusters(v)
    ij, cos = vector_pairs(v, groups)
    del groups
    shared = np.empty((0, 2), dtype=np.int32)
    if links.height:
        pos = pl.DataFrame({"src": ids, "i": np.arange(n, dtype=np.int32)})
        grouped = links.select("src", "dst").unique().join(pos, on="src").group_by("dst").agg("i")
        shared, gcos = group_pairs([np.asarray(g) for g in grouped["i"].to_list()], v)
        both = np.concatenate([ij, shared])
        _, first = np.unique(both[:, 0].astype(np.int64) * n + both[:, 1], return_index=True)
        ij, cos = both[first], np.concatenate([cos, gcos])[first]
    keep = top_pairs(n, ij, cos)
    ij, cos = ij[keep], cos[keep]
    key = ij[:, 0].astype(np.int64) * n + ij[:, 1]
    is_shared = np.isin(key, shared[:, 0].astype(np.int64) * n + shared[:, 1]) if shared.size else np.zeros(len(ij), bool)
    return Candidates(ij, cos, is_shared, label)


def near_best(n: int, ij: np.ndarray, cos: np.ndarray, margin: float) -> np.ndarray:
    """Whether each pair's cosine is within `margin` of the best candidate cosine of both its
    memories: a look-alike of another subject is usually less close than the memory's own other
    versions, so it loses to them (a memory with no other version keeps its look-alike)."""
    best = np.full(n, -np.inf, dtype=np.float32)
    np.maximum.at(best, ij[:, 0], cos)
    np.maximum.at(best, ij[:, 1], cos)
    return cos >= np.maximum(best[ij[:, 0]], best[ij[:, 1]]) - margin


class EvolutionPass:
    """The rules (`ltm.memory.supersession`) over candidate pairs, `BATCH_PAIRS` at a time.

    `similar()` yields the SIMILAR_TO rows batch by batch (pairs ordered by the cluster of their
    first memory, so a batch reads the facts of few memories) and keeps the contradicting pairs as
    compact arrays; `supersedes()` and `transitions()` are built from those afterwards. Memory held:
    one batch's facts and rows, plus the contradicting pairs."""

    def __init__(self, memories: pl.DataFrame, cand: Candidates, batch: int | None = None):
        self.ids = memories["id"].to_arrow()
        self.content, self.created = memories["content"], memories["created_at"]
        close = cand.cos >= np.where(cand.shared, SIMILAR_LINKED_MIN, SIMILAR_MIN)  # the rules' first test, for all at once
        far = np.zeros(len(close), dtype=bool)
        if NEAR_BEST is not None:
            near = near_best(len(self.ids), cand.ij, cand.cos, NEAR_BEST)
            # an update that names the value it left is judged however far it is ("moved its invoices
            # from Postgres to CockroachDB" is less close to "stores invoices in Postgres" than two
            # copies of the old value are to each other); the rules keep it only as such an update
            says_left = memories["content"].str.contains(LEFT_HINT).fill_null(False).to_numpy()
            far = ~near & says_left[cand.ij].any(axis=1)
            close &= near | far
        self.ij, self.cos, self.shared, self.far = cand.ij[close], cand.cos[close], cand.shared[close], far[close]
        self.order = np.lexsort((self.ij[:, 1], self.ij[:, 0], cand.label[self.ij[:, 0]]))
        self.batch, self.pairs_judged = batch or BATCH_PAIRS, int(self.ij.shape[0])
        self._contra: list[tuple] = []  # per batch: newer, older (int32), reasons, transition fields
        self._contra_frame: pl.DataFrame | None = None

    def _ids(self, rows: np.ndarray) -> pa.Array:
        return self.ids.take(pa.array(rows))

    def _batches(self) -> Iterator[tuple[np.ndarray, tuple]]:
        """(members, `judge_batch` arguments) per batch: the pairs as positions into the members."""
        for s in range(0, self.order.size, self.batch):
            sel = self.order[s:s + self.batch]
            members = np.unique(self.ij[sel])
            local = np.searchsorted(members, self.ij[sel])
            yield members, (self.content.gather(members).to_list(), self._ids(members).to_pylist(),
                            self.created.gather(members).to_list(), [tuple(p) for p in local.tolist()],
                            self.cos[sel].tolist(), self.shared[sel].tolist(), self.far[sel].tolist())

    def similar(self) -> Iterator[pa.RecordBatch]:
        """SIMILAR_TO rows in lake columns, one record batch per `batch` candidate pairs."""
        schema = lake_schema("SIMILAR_TO")
        for members, args in self._batches():
            similar, contra = judge_batch(*args)
            if contra:
                n, o, reason, delta, subject, was, now = zip(*contra)
                self._contra.append((members[list(n)].astype(np.int32), members[list(o)].astype(np.int32),
                                     list(reason), list(delta), list(subject), list(was), list(now)))
            if similar:
                n, o, weight, contradicts, reason = zip(*similar)
                yield pa.RecordBatch.from_arrays(
                    [self._ids(members[list(n)]), self._ids(members[list(o)]),
                     *(pa.array([v] * len(n), pa.string()) for v in EDGE_KEYS.values()),
                     pa.array(weight, pa.float64()), pa.array(contradicts, pa.bool_()), pa.array(reason, pa.string())],
                    schema=schema)

    def _contradicting(self) -> pl.DataFrame:
        """Every contradicting pair with a later newer memory: n, o (row indices) and their fields
        (built once, after `similar()` has judged every batch)."""
        if self._contra_frame is None:
            self._contra_frame = self._contradicting_frame()
        return self._contra_frame

    def _contradicting_frame(self) -> pl.DataFrame:
        cols = ["n", "o", "reason", "temporal_delta", "subject", "from_value", "to_value"]
        if not self._contra:
            return pl.DataFrame(schema={"n": pl.Int32, "o": pl.Int32, "reason": pl.String, "temporal_delta": pl.Int64,
                                        "subject": pl.String, "from_value": pl.String, "to_value": pl.String})
        parts = [pl.DataFrame(dict(zip(cols, c)), schema_overrides={"temporal_delta": pl.Int64, "subject": pl.String,
                                                                     "from_value": pl.String, "to_value": pl.String})
                 for c in self._contra]
        return pl.concat(parts).sort("n", "o")

    def supersedes(self) -> pa.Table:
        """SUPERSEDES newer -> older for every contradicting pair whose newer one is strictly later."""
        c = self._contradicting()
        return self._edges(c["n"], c["o"], {"reason": c["reason"], "temporal_delta": c["temporal_delta"]}, "SUPERSEDES")

    def transitions(self) -> pa.Table:
        """TRANSITIONED_TO older -> newer along the direct steps of SUPERSEDES (both with values)."""
        c = self._contradicting()
        if c.height == 0:
            return self._edges(c["o"], c["n"], {k: c[k] for k in ("subject", "from_value", "to_value")}
                               | {"turn": pl.Series("turn", [], pl.Int64)}, "TRANSITIONED_TO")
        implied = (c.select("n", m="o").join(c.select(m="n", o="o"), on="m").select("n", "o").unique())
        kept = c.join(implied, on=["n", "o"], how="anti").sort("n", "o")  # C -> B -> A drops C -> A
        depth = np.zeros(len(self.ids), dtype=np.int64)  # the longest chain of older versions under a memory
        when = self.created.dt.epoch("us").to_numpy()
        n, o = kept["n"].to_numpy(), kept["o"].to_numpy()
        for k in np.argsort(when[n], kind="stable"):  # an older memory's depth is final before a newer one reads it
            depth[n[k]] = max(depth[n[k]], depth[o[k]] + 1)
        kept = kept.with_columns(turn=pl.Series(depth[o] + 1)).filter(pl.col("from_value").is_not_null())
        props = {c: kept[c] for c in ("subject", "from_value", "to_value", "turn")}
        return self._edges(kept["o"], kept["n"], props, "TRANSITIONED_TO")

    def _edges(self, src: pl.Series, dst: pl.Series, props: dict[str, pl.Series], table: str) -> pa.Table:
        schema = lake_schema(table)
        cols = {"src": self._ids(src.to_numpy()), "dst": self._ids(dst.to_numpy()),
                **{k: pa.array([v] * len(src), pa.string()) for k, v in EDGE_KEYS.items()},
                **{k: v.to_arrow() for k, v in props.items()}}
        return pa.table([cols[name] for name in schema.names], names=schema.names).cast(schema)
