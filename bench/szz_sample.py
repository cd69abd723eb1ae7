"""SZZ on a sample of a large repository's fixes, under variants of the commit-graph and blame flags.

    .venv/bin/python bench/szz_sample.py PATH HOME [--fixes 120] [--variants graph,bloom,bloom-noM] [--workers W]

HOME is a home whose lake already holds PATH's history under the key `bench`, as
`bench/bugs_stage.py PATH --home HOME --stage history` leaves it; the span cache under
HOME/cache is used as the bugs stage uses it. The fixes (as `ltm.stages.bugs.find_fixes`
finds them) are sorted by sha and every k-th non-merge one is kept, so a sample is spread over the
whole history and the same for every variant. Each variant runs `analyze_fixes` on the same diffs:
  graph      a commit-graph without changed-path Bloom filters (the stage before #21)
  bloom      a commit-graph with them (the stage now)
  *-noM      the same with `-w` only (no moved-line tracing; rows change)
  none       no commit-graph at all
Prints one JSON line per variant (seconds, fixes/s, blame processes, their summed seconds, the
slowest, the load) and, against the first variant, whether the rows are identical and the share
of (fix, introducing commit) pairs kept.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from collections import Counter
from pathlib import Path

import polars as pl

import ltm.bugs.szz as szz
from ltm.bugs.diffs import commit_diffs
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.spans import SpanCache
from ltm.lake import Lake
from ltm.stages.bugs import find_fixes

KEY = "bench"


def sample(repo: GitRepo, lake: Lake, n: int) -> list:
    commits = pl.from_arrow(lake.read("Commit", KEY, columns=["sha", "message", "committed_at"]))
    shas = sorted(dict.fromkeys(s for b in find_fixes(commits, None, Counter()).values() for s in b.fixes))
    picked = shas[:: max(1, len(shas) // n)][: n * 2]
    return [d for d in commit_diffs(repo, picked) if not d.is_merge][:n]


def prepare(path: Path, home: Path, variant: str) -> tuple[GitRepo, float]:
    """A GitRepo seeing the variant's commit-graph (written into HOME/bench-graphs, timed)."""
    repo = GitRepo(path)
    if variant.startswith("none"):
        return repo, 0.0
    objects = home / "bench-graphs" / variant.split("-")[0] / "objects"
    (objects / "info").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(objects)}
    bloom = ["--changed-paths"] if variant.startswith("bloom") else []
    started = time.perf_counter()
    subprocess.run(repo._cmd("commit-graph", "write", "--reachable", *bloom, "--no-progress", "--object-dir",
                             str(objects)), env=env, check=True)
    repo.env = env
    return repo, time.perf_counter() - started


def run(path: Path, home: Path, diffs: list, variant: str, workers: int) -> tuple[dict, set, set]:
    repo, graph_s = prepare(path, home, variant)
    flags = ("-w",) if variant.endswith("-noM") else szz.BLAME_FLAGS
    times: list[tuple[float, str]] = []
    blame = szz._blame

    def timed(*a):
        t = time.perf_counter()
        out = blame(*a)
        times.append((time.perf_counter() - t, a[2].path))
        return out

    szz._blame = timed
    cache = SpanCache(home / "cache" / "spans.sqlite")
    started = time.perf_counter()
    try:
        res = list(szz.analyze_fixes(repo, KEY, iter(diffs), workers=workers, flags=flags, cache=cache))
    finally:
        szz._blame = blame
        cache.close()
    seconds = time.perf_counter() - started
    rows = {(r.sha, c.sha, c.path, c.entity.id if c.entity else None, c.lines, c.method) for r in res for c in r.candidates}
    pairs = {(r.sha, c.sha) for r in res for c in r.candidates}
    times.sort(reverse=True)
    return {"variant": variant, "fixes": len(diffs), "graph_seconds": round(graph_s, 1), "seconds": round(seconds, 1),
            "fixes_per_s": round(len(diffs) / seconds, 1), "blames": len(times),
            "blame_seconds": round(sum(t for t, _ in times), 1), "slowest": [(round(t, 2), p) for t, p in times[:3]],
            "loadavg": round(os.getloadavg()[0], 2)}, rows, pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("home", type=Path)
    ap.add_argument("--fixes", type=int, default=120)
    ap.add_argument("--variants", default="graph,bloom")
    ap.add_argument("--workers", type=int, default=szz.WORKERS)
    args = ap.parse_args()
    diffs = sample(GitRepo(args.repo), Lake(args.home / "lake"), args.fixes)
    first = None
    for v in args.variants.split(","):
        figures, rows, pairs = run(args.repo, args.home, diffs, v, args.workers)
        print(json.dumps(figures), flush=True)
        if first is None:
            first = (v, rows, pairs)
        else:
            print(json.dumps({"against": first[0], "variant": v, "rows_identical": rows == first[1],
                              "pairs_kept": round(len(pairs & first[2]) / max(1, len(first[2])), 4)}), flush=True)


if __name__ == "__main__":
    main()
