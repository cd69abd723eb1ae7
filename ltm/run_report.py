"""What a run shows in the web UI besides counts: Markdown tables a person reads at a glance.

- the functions a run's commits changed most (from `MODIFIES`), for the `commits` asset;
- the reconciliation report, for the `reconciliation` asset.

Both degrade to a one-line note when there is nothing to show (no history mined, no `MODIFIES`
written, nothing new since the last run).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ltm.lake import Lake

TOP = 10


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """A GitHub-style Markdown table of `rows` with `columns` in that order."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def _read(lake: Lake, table: str, repo: str) -> pl.DataFrame:
    return pl.from_arrow(lake.read(table, repo))  # a table never written reads as empty


def most_changed_functions(lake: Lake, repo: str, newest_commits: int | None = None, top: int = TOP) -> list[dict[str, Any]]:
    """Functions changed by the most commits among the repository's newest `newest_commits` (all if None).

    Ties go to more lines changed, then to the name. Each row: function, file, commits,
    lines_added, lines_deleted.
    """
    mods = _read(lake, "MODIFIES", repo)
    if mods.is_empty() or newest_commits == 0:
        return []
    mods = mods.filter(pl.col("dst_label") == "Function")
    if newest_commits is not None:
        commits = _read(lake, "Commit", repo)
        if not commits.is_empty():
            newest = commits.sort("committed_at", descending=True).head(newest_commits)["id"]
            mods = mods.filter(pl.col("src").is_in(newest.implode()))
    if mods.is_empty():
        return []
    per_fn = (
        mods.group_by("dst")
        .agg(pl.col("src").n_unique().alias("commits"), pl.col("lines_added").sum(), pl.col("lines_deleted").sum())
        .with_columns((pl.col("lines_added") + pl.col("lines_deleted")).alias("_churn"))
    )
    cols = ["id", "qualified_name", "file_path"]
    parts = [df.select(cols) for df in (_read(lake, t, repo) for t in ("Function", "past_functions"))
             if not df.is_empty() and set(cols) <= set(df.columns)]
    if parts:
        names = pl.concat(parts).unique("id", keep="first")
        per_fn = per_fn.join(names, left_on="dst", right_on="id", how="left")
    else:
        per_fn = per_fn.with_columns(pl.lit(None, pl.String).alias("qualified_name"), pl.lit(None, pl.String).alias("file_path"))
    per_fn = per_fn.with_columns(pl.coalesce("qualified_name", "dst").alias("function"))
    top_rows = per_fn.sort(["commits", "_churn", "function"], descending=[True, True, False]).head(top)
    return [
        {"function": r["function"], "file": r["file_path"] or "", "commits": r["commits"],
         "lines_added": r["lines_added"], "lines_deleted": r["lines_deleted"]}
        for r in top_rows.iter_rows(named=True)
    ]


def most_changed_markdown(rows: list[dict[str, Any]]) -> str:
    """The most-changed functions as Markdown, or a note when the run changed none."""
    if not rows:
        return "_No function was changed by the commits of this run._"
    return markdown_table(rows, ["function", "file", "commits", "lines_added", "lines_deleted"])


def reconciliation_markdown(report: dict[str, Any]) -> str:
    """The reconciliation report as a short Markdown page: verdict, counts, orphans by kind."""
    verdict = "**OK**: graph and vectors agree" if report["ok"] else "**BROKEN LINKS**: see the orphans below"
    lines = [
        verdict, "",
        markdown_table(
            [{"what": "graph nodes with a vector_id", "count": report["graph_nodes_with_vector"]},
             {"what": "vector rows", "count": report["vector_rows"]},
             {"what": "linked both ways", "count": report["linked"]},
             {"what": "coverage", "count": f"{report['coverage']:.2%}"}],
            ["what", "count"],
        ),
    ]
    if report.get("by_label"):
        lines += ["", markdown_table([{"label": k, "nodes": v} for k, v in sorted(report["by_label"].items())],
                                     ["label", "nodes"])]
    lines += ["", markdown_table([{"orphans": k, "count": v} for k, v in report["orphan_counts"].items()],
                                 ["orphans", "count"])]
    for kind, ids in report["orphans"].items():
        if ids:
            lines += ["", f"{kind} (first {len(ids)}):", *[f"- `{i}`" for i in ids]]
    return "\n".join(lines)
