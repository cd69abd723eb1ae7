"""What the bound on a fix's size (`max_definitions`) keeps out of AFFECTS and INTRODUCED_BY, on real histories.

    .venv/bin/python bench/rewrite_fixes.py HOME CLONE [--key KEY] [--bound N] [--from-kept]

HOME is a home that ingested CLONE (`ltm ingest CLONE --home HOME`); KEY its repository key (default:
CLONE's folder name). The home's lake and span cache are copied twice into a temporary folder, and the
bugs stage runs on each copy in this process, in full: once with no bound on the definitions a fix may
change (every fix of at most `max_files` files blamed, as before the bound existed) and once with
`--bound` (default: the stage's `MAX_DEFINITIONS`). Prints one JSON object: rows per table under each,
the fixes skipped as rewrites with their first message lines and sizes, the share of AFFECTS and
INTRODUCED_BY rows they held, and the most fix-prone functions under each (`FunctionDefects.fix_count`).

`--from-kept` runs nothing: it reads the SZZ results HOME's own run kept (`szz_fixes`, derived with no
bound when HOME was ingested before the bound existed) and says which fixes the bound would skip (the
package's own definitions each changed, then all it changed) and what share of the fixes' affected
definitions and introducing candidates they hold. For a history
where two full bugs stages take too long (blame of every fix one by one).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from ltm.bugs.szz import MAX_DEFINITIONS
from ltm.code_paths import is_auxiliary_entity
from ltm.lake import Lake
from ltm.stages.bugs import stage_bugs

TABLES = ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY")


def _run(home: Path, clone: Path, key: str, work: Path, bound: int) -> tuple[dict, Lake, float]:
    shutil.copytree(home / "lake", work / "lake")
    shutil.copytree(home / "cache", work / "cache")
    lake = Lake(work / "lake")
    started = time.perf_counter()
    stats = stage_bugs(clone, key, lake, cache_dir=work / "cache", full=True, max_definitions=bound)
    return stats.counts, lake, time.perf_counter() - started


def _top(lake: Lake, key: str, n: int = 5) -> list[list]:
    fd = pl.from_arrow(lake.read("FunctionDefects", key, columns=["id", "fix_count"]))
    return [[i.split(":", 2)[-1], c] for i, c in fd.sort(["fix_count", "id"], descending=[True, False]).head(n).rows()]


def from_kept(home: Path, key: str, bound: int) -> dict:
    """The fixes over `bound` among the SZZ results kept in `home`, and their share of the rows."""
    lake = Lake(home / "lake")
    fixes = pl.from_arrow(lake.read("szz_fixes", key, columns=["sha", "skipped", "affected", "candidates"]))
    fixes = fixes.filter(pl.col("skipped").is_null()).with_columns(
        pl.col("affected").list.len().alias("definitions"), pl.col("candidates").list.len().alias("candidates_n"),
        pl.col("affected").map_elements(_package_count, return_dtype=pl.Int64).alias("package"))
    big = fixes.filter(pl.col("package") > bound)
    commits = pl.from_arrow(lake.read("Commit", key, columns=["sha", "message"]))
    first = {s: (m or "").splitlines()[0][:80] if m else "" for s, m in commits.rows() if s in set(big["sha"])}
    return {
        "repo": key, "bound": bound, "fixes_blamed": fixes.height, "over_bound": big.height,
        "share_of_affected": round(big["definitions"].sum() / max(fixes["definitions"].sum(), 1), 3),
        "share_of_candidates": round(big["candidates_n"].sum() / max(fixes["candidates_n"].sum(), 1), 3),
        "definitions_per_fix_p50_p90_p99_max": [int(fixes["definitions"].quantile(q)) for q in (0.5, 0.9, 0.99)]
        + [int(fixes["definitions"].max() or 0)],
        "rewrites": [[first.get(s, ""), p, d] for s, p, d in big.sort("package", descending=True)
                     .select("sha", "package", "definitions").rows()][:12],
    }


def _package_count(affected: list[dict]) -> int:
    """How many of a fix's affected definitions are the package's own, as the stage counts them (by the path
    in the id: `fn:<repo>:<path>:<name>`)."""
    return sum(1 for a in affected if not is_auxiliary_entity(a["id"].split(":", 2)[2].rsplit(":", 1)[0],
                                                              a["qualified_name"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("home", type=Path)
    ap.add_argument("clone", type=Path)
    ap.add_argument("--key", default=None)
    ap.add_argument("--bound", type=int, default=MAX_DEFINITIONS)
    ap.add_argument("--from-kept", action="store_true", help="read the home's kept SZZ results; run nothing")
    args = ap.parse_args()
    key = args.key or args.clone.resolve().name
    if args.from_kept:
        print(json.dumps(from_kept(args.home, key, args.bound)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        _, before, before_s = _run(args.home, args.clone, key, Path(tmp) / "unbounded", sys.maxsize)
        counts, after, after_s = _run(args.home, args.clone, key, Path(tmp) / "bounded", args.bound)
        fixes = pl.from_arrow(before.read("szz_fixes", key, columns=["sha", "skipped", "affected", "candidates"]))
        skipped = set(pl.from_arrow(after.read("szz_fixes", key, columns=["sha", "skipped"]))
                      .filter(pl.col("skipped") == "too_many_definitions")["sha"])
        commits = pl.from_arrow(before.read("Commit", key, columns=["sha", "message"]))
        first = {s: (m or "").splitlines()[0][:80] if m else "" for s, m in commits.rows() if s in skipped}
        big = fixes.filter(pl.col("sha").is_in(list(skipped))).with_columns(
            pl.col("affected").list.len().alias("definitions"), pl.col("candidates").list.len().alias("candidates_n"))
        out = {
            "repo": key, "bound": args.bound, "fixes": fixes.height,
            "fixes_blamed_unbounded": fixes.filter(pl.col("skipped").is_null()).height,
            "skipped_as_rewrites": counts.get("skipped_too_many_definitions", 0),
            "rows": {t: [before.read(t, key).num_rows, after.read(t, key).num_rows] for t in TABLES},
            "rewrites": [[first.get(s, ""), d] for s, d in big.sort("definitions", descending=True)
                         .select("sha", "definitions").rows()][:12],
            "top_fix_count": {"unbounded": _top(before, key), "bounded": _top(after, key)},
            "seconds": {"unbounded": round(before_s, 1), "bounded": round(after_s, 1)},
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
