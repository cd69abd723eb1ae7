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
  *-wholefn  an add-only fix blames all lines of its enclosing functions to the end (before #21's
             `newest_in_spans`, which stops `git blame --incremental` at their newest commit)
  none       no commit-graph at all
Prints one JSON line per variant (seconds, fixes/s, blame processes, their summed seconds, the
slowest, the load, the blame seconds spent on files that are not code, the share of pairs still
found without them, and the seconds of the add-only fixes' blames over whole enclosing functions) and, against the first variant, whether the rows are identical and the
share of (fix, introducing commit) pairs kept.

`--floor` then times, on the same workers, what any blame-per-file SZZ pays whatever its history
walk: one git process per blame of the sample (`git rev-parse`), and the same blames limited to the
fix's parent alone (`-L 1,1 P~1..P`: the process, the commit-graph, one tree and one diff), and
scales the sample's blame count to every fix commit of the repository (`fix_commits`).
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
from concurrent.futures import ThreadPoolExecutor
from ltm.bugs.diffs import commit_diffs
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.spans import SpanCache
from ltm.extract.languages import language_for
from ltm.lake import Lake
from ltm.stages.bugs import find_fixes

KEY = "bench"


def fix_shas(lake: Lake) -> list[str]:
    commits = pl.from_arrow(lake.read("Commit", KEY, columns=["sha", "message", "committed_at"]))
    return sorted(dict.fromkeys(s for b in find_fixes(commits, None, Counter()).values() for s in b.fixes))


def sample(repo: GitRepo, shas: list[str], n: int) -> list:
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


def _whole_functions(repo: GitRepo, parent: str, job, flags: tuple[str, ...]) -> dict:
    """The stage before #21's last cut: an add-only fix blames every line of its enclosing functions."""
    lines = job.lines or [n for e in job.functions for n in range(e.line_start, e.line_end + 1)]
    return szz.blame_lines(repo, parent, job.path, lines, flags)


def run(path: Path, home: Path, diffs: list, variant: str, workers: int) -> tuple[dict, set, set, list, GitRepo]:
    repo, graph_s = prepare(path, home, variant)
    flags = ("-w",) if variant.endswith("-noM") else szz.BLAME_FLAGS
    times: list[tuple[float, str, str, bool]] = []
    original = szz._blame
    blame = _whole_functions if variant.endswith("-wholefn") else original

    def timed(*a):
        t = time.perf_counter()
        out = blame(*a)
        times.append((time.perf_counter() - t, a[2].path, a[1], not a[2].lines))
        return out

    szz._blame = timed
    cache = SpanCache(home / "cache" / "spans.sqlite")
    started = time.perf_counter()
    try:
        res = list(szz.analyze_fixes(repo, KEY, iter(diffs), workers=workers, flags=flags, cache=cache))
    finally:
        szz._blame = original
        cache.close()
    seconds = time.perf_counter() - started
    rows = {(r.sha, c.sha, c.path, c.entity.id if c.entity else None, c.lines, c.method) for r in res for c in r.candidates}
    pairs = {(r.sha, c.sha) for r in res for c in r.candidates}
    code_pairs = {(r.sha, c.sha) for r in res for c in r.candidates if language_for(c.path)}
    times.sort(reverse=True)
    return {"variant": variant, "fixes": len(diffs), "graph_seconds": round(graph_s, 1), "seconds": round(seconds, 1),
            "fixes_per_s": round(len(diffs) / seconds, 1), "blames": len(times),
            "blame_seconds": round(sum(t for t, *_ in times), 1),
            "blame_seconds_not_code": round(sum(t for t, p, *_ in times if not language_for(p)), 1),
            "blame_seconds_add_only": round(sum(t for t, *_, add_only in times if add_only), 1),
            "pairs_kept_code_files_only": round(len(code_pairs) / max(1, len(pairs)), 4),
            "slowest": [(round(t, 2), p) for t, p, *_ in times[:3]],
            "loadavg": round(os.getloadavg()[0], 2)}, rows, pairs, times, repo


def floor(repo: GitRepo, times: list, workers: int, fixes_sampled: int, fix_commits: int) -> dict:
    """What the sample's blame processes cost without walking history (see the module docstring)."""
    def spawn(job: tuple) -> None:
        subprocess.run(repo._cmd("rev-parse", "HEAD"), capture_output=True, env=repo.env)

    def one_commit(job: tuple) -> None:
        _, path, parent, _ = job
        subprocess.run(repo._cmd("blame", "--porcelain", *szz.BLAME_FLAGS, "-L", "1,1", f"{parent}~1..{parent}", "--",
                                 path), capture_output=True, env=repo.env)

    out: dict = {"floor_blames": len(times), "fix_commits": fix_commits, "workers": workers}
    scale = fix_commits / fixes_sampled
    for name, fn in (("spawn", spawn), ("one_commit_blame", one_commit)):
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(fn, times))
        wall = time.perf_counter() - started
        out[f"{name}_ms_per_blame"] = round(wall / len(times) * 1000, 2)
        out[f"{name}_s_all_fixes"] = round(wall * scale, 1)
    measured = sum(t for t, *_ in times) / workers
    out["sample_blame_s_per_worker"] = round(measured, 1)
    out["sample_blame_s_all_fixes"] = round(measured * scale, 1)
    out["loadavg"] = round(os.getloadavg()[0], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("home", type=Path)
    ap.add_argument("--fixes", type=int, default=120)
    ap.add_argument("--variants", default="graph,bloom")
    ap.add_argument("--workers", type=int, default=szz.WORKERS)
    ap.add_argument("--floor", action="store_true", help="also time the blame processes' floor (module docstring)")
    args = ap.parse_args()
    shas = fix_shas(Lake(args.home / "lake"))
    diffs = sample(GitRepo(args.repo), shas, args.fixes)
    first = None
    for v in args.variants.split(","):
        figures, rows, pairs, times, repo = run(args.repo, args.home, diffs, v, args.workers)
        print(json.dumps(figures), flush=True)
        if first is None:
            first = (v, rows, pairs)
        else:
            print(json.dumps({"against": first[0], "variant": v, "rows_identical": rows == first[1],
                              "pairs_kept": round(len(pairs & first[2]) / max(1, len(first[2])), 4)}), flush=True)
    if args.floor:
        print(json.dumps(floor(repo, times, args.workers, len(diffs), len(shas))), flush=True)


if __name__ == "__main__":
    main()
