"""PageRank over CALLS and DEPENDS_ON, computed from the lake at graph build, for ranking.

Per repository: the nodes are its Functions and Modules, the edges CALLS (weighted by their
confidence) and DEPENDS_ON (weight 1). Scores are scaled so that the average node of a repository
scores 1.0, which keeps them comparable across repositories of different sizes. A Class scores
the sum of its methods' scores (a class without methods gets the teleport floor, 1 - damping).
Power iteration in numpy; nodes without out-edges spread their rank evenly (the usual fix).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ltm.lake import Lake

DAMPING = 0.85


def pagerank(n: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray,
             damping: float = DAMPING, tol: float = 1e-10, max_iter: int = 200) -> np.ndarray:
    """PageRank of `n` nodes over weighted edges (index arrays); sums to 1."""
    if n == 0:
        return np.zeros(0)
    out_w = np.bincount(src, weights=weight, minlength=n)
    dangling = out_w == 0
    share = np.divide(weight, out_w[src], out=np.zeros_like(weight), where=out_w[src] > 0)
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        spread = np.bincount(dst, weights=rank[src] * share, minlength=n)
        new = (1 - damping) / n + damping * (spread + rank[dangling].sum() / n)
        if np.abs(new - rank).sum() < tol:
            rank = new
            break
        rank = new
    return rank / rank.sum()


def _read(lake: Lake, table: str, columns: list[str]) -> pl.DataFrame:
    return pl.from_arrow(lake.read(table, columns=columns))


def scores(lake: Lake) -> dict[str, pl.DataFrame]:
    """`id, pagerank` per label (Function, Module, Class) for every repository in the lake."""
    nodes = pl.concat([
        _read(lake, "Function", ["id", "repo"]), _read(lake, "Module", ["id", "repo"]),
    ])
    edges = pl.concat([
        _read(lake, "CALLS", ["src", "dst", "repo", "confidence"]).rename({"confidence": "w"}),
        _read(lake, "DEPENDS_ON", ["src", "dst", "repo"]).with_columns(pl.lit(1.0).alias("w")),
    ])
    parts = []
    for (repo,), group in nodes.group_by(["repo"], maintain_order=True):
        ids = group["id"].unique(maintain_order=True)
        index = pl.DataFrame({"id": ids, "i": np.arange(len(ids))})
        e = (edges.filter(pl.col("repo") == repo)
             .join(index.rename({"id": "src", "i": "s"}), on="src")
             .join(index.rename({"id": "dst", "i": "d"}), on="dst"))
        rank = pagerank(len(ids), e["s"].to_numpy(), e["d"].to_numpy(), e["w"].fill_null(1.0).to_numpy().astype(float))
        parts.append(pl.DataFrame({"id": ids, "pagerank": rank * len(ids)}))
    ranked = pl.concat(parts) if parts else pl.DataFrame(schema={"id": pl.String, "pagerank": pl.Float64})
    methods = _read(lake, "HAS_METHOD", ["src", "dst"]).join(ranked, left_on="dst", right_on="id")
    classes = (_read(lake, "Class", ["id"])
               .join(methods.group_by("src").agg(pl.col("pagerank").sum()), left_on="id", right_on="src", how="left")
               .with_columns(pl.col("pagerank").fill_null(1 - DAMPING)))
    return {"Function": ranked, "Module": ranked, "Class": classes}


def with_pagerank(df: pl.DataFrame, ranked: pl.DataFrame) -> pl.DataFrame:
    """`df` with its `pagerank` column filled from `ranked` (same row order)."""
    joined = df.drop("pagerank").join(ranked, on="id", how="left", maintain_order="left")
    return joined.select(df.columns)
