"""Ranking: the fused retrieval score blended with graph signals, weights from configuration.

    score = SEMANTIC_WEIGHT * fused / max(fused)
          + GRAPH_WEIGHT * (CENTRALITY_SHARE * pr / (1 + pr) + (1 - CENTRALITY_SHARE) * defects / (1 + defects))

`pr` is the `pagerank` the graph build stores, scaled so a repository's average node scores 1
(so 0.5 here; an entity without one, such as a commit, counts as average); `defects` is the larger of the stored counts
(FunctionDefects: `fix_count` + `bugs_introduced`) and the edge-derived count: the
bugs that AFFECT the entity plus the bug-fix commits that MODIFY it. Absent signals count as 0.
A memory has neither: its graph signal is its place by date among the query's memory candidates
(1 the newest, 0 the oldest), so of two versions of a fact about as relevant the newer leads even
where no SUPERSEDES edge joins them.
RRF scores of neighbouring ranks differ by a few percent, so the default GRAPH_WEIGHT (0.1) makes
graph signals a strong tie-breaker, not a override of relevance.
Weights come from the home's `settings.json` (`"ranking": {"SEMANTIC_WEIGHT": 0.9, ...}`), then
the environment (`LTM_SEMANTIC_WEIGHT`, `LTM_GRAPH_WEIGHT`, `LTM_CENTRALITY_SHARE`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ltm.errors import QueryError
from ltm.graph.node import Node

_KEYS = {"SEMANTIC_WEIGHT": "semantic_weight", "GRAPH_WEIGHT": "graph_weight",
         "CENTRALITY_SHARE": "centrality_share", "EXPANSION_DECAY": "expansion_decay"}


@dataclass(frozen=True)
class RankingConfig:
    """Weights of the final score; see the module docstring."""

    semantic_weight: float = 0.9
    graph_weight: float = 0.1
    centrality_share: float = 0.5
    expansion_decay: float = 0.5

    @classmethod
    def load(cls, ranking: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> "RankingConfig":
        """Defaults, overridden by the home's `ranking` settings, overridden by `LTM_<KEY>` variables."""
        env = os.environ if env is None else env
        values: dict[str, float] = {}
        for source, prefix in ((ranking or {}, ""), (env, "LTM_")):
            for key, attr in _KEYS.items():
                raw = source.get(prefix + key, source.get(attr) if not prefix else None)
                if raw is None:
                    continue
                try:
                    values[attr] = float(raw)
                except (TypeError, ValueError) as e:
                    raise QueryError(f"{prefix}{key}={raw!r} is not a number: set it to e.g. 0.8") from e
        cfg = cls(**values)
        for f in fields(cfg):
            v = getattr(cfg, f.name)
            if not 0.0 <= v <= (1.0 if f.name in ("centrality_share", "expansion_decay") else 10.0):
                raise QueryError(f"ranking weight {f.name.upper()}={v} is out of range: use a value between 0 and 1")
        return cfg


@dataclass(frozen=True)
class Scored:
    score: float
    fused: float
    centrality: float
    defects: float
    recency: float | None = None  # a memory's place by date among the memory candidates (`recency`)


def recency(dates: Mapping[str, Any]) -> dict[str, float]:
    """Each memory candidate's place among the memory candidates by date (`dates`: id -> its
    `created_at`): 1.0 the newest, 0.0 the oldest (none when fewer than two carry a date)."""
    dated = sorted((d, i) for i, d in dates.items() if d is not None)
    if len(dated) < 2:
        return {}
    return {i: k / (len(dated) - 1) for k, (_, i) in enumerate(dated)}


def blend(fused: Mapping[str, float], nodes: Mapping[str, Node], cfg: RankingConfig,
          dates: Mapping[str, Any] | None = None) -> dict[str, Scored]:
    """The final score of every fused candidate; graph signals only where the node is known. A
    memory's graph signal is its place by date among the memory candidates (`dates`, see `recency`),
    so of two versions of a fact about as relevant the newer leads."""
    top = max(fused.values(), default=0.0) or 1.0
    newer = recency(dates or {})
    out = {}
    for i, f in fused.items():
        node = nodes.get(i)
        pr = node.pagerank if node is not None and node.pagerank is not None else 1.0
        centrality = float(pr) / (1.0 + float(pr))
        defects = node.defects / (1.0 + node.defects) if node else 0.0
        # a memory has neither pagerank nor defects: its whole graph signal is its place by date
        graph = newer[i] if i in newer else cfg.centrality_share * centrality + (1.0 - cfg.centrality_share) * defects
        out[i] = Scored(cfg.semantic_weight * f / top + cfg.graph_weight * graph, f, centrality, defects, newer.get(i))
    return out
