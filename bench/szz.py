"""Our SZZ against PyDriller's `Git.get_commits_last_modified_lines`, on the same fix commits.

    .venv/bin/python bench/szz.py PATH [--limit N] [--max-files 100] [--workers N] [--flags "-w -M"] [--repeat R]
        [--no-commit-graph]
    (needs the `bench` extra: pip install -e '.[bench]')

Fix commits are the non-merge commits with fix evidence (`ltm.bugs.evidence`) changing at most
`--max-files` files (SZZ skips larger ones), the newest `--limit` of them. Both sides diff the
fix against its parent and blame at the parent, ignoring whitespace, blank and comment lines.
Ours, as the bugs stage runs it: a commit-graph written into a scratch object directory outside
the repository (timed), one `git log --stdin` for all diffs, one `git blame --porcelain -w -M
-L...` per file (run by `--workers` threads, default one per CPU up to 4), the function each
blamed line sits in, and the add-only fallback (the enclosing function's lines in the same
blame); AFFECTS is not SZZ and is not timed. The functions come from the span cache the history
stage leaves in the home (filled untimed before the rounds, as the pipeline runs history first);
`ours_parsing` is the same run with no cache, parsing every blob it needs (one `cat-file
--batch`), for a bugs stage without a history stage before it. PyDriller: one whole-file `git
blame -w` per file, one thread (it has no other mode).
Prints one JSON object: seconds (wall and CPU of the process and its git children), fixes per
second, speed-up, the worker count and blame flags, the load average, and agreement: the share of
fixes whose candidate commits are identical, with the disagreements listed and classified (an
untimed run of ours with plain `-w` tells moved-line tracing from other causes). `--repeat R`
runs R rounds, alternating which side goes first, and reports medians.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ltm.bugs.diffs import commit_diffs
from ltm.bugs.evidence import parse_fix_evidence
from ltm.bugs.szz import BLAME_FLAGS, WORKERS, analyze_fixes
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import mine_history
from ltm.extract.history.spans import SpanCache


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): less noisy than wall time on a shared machine."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def fix_commits(repo: Path, max_files: int) -> list[str]:
    """Non-merge commits with fix evidence and at most `max_files` changed files, newest first."""
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--no-merges", "--format=%x1e%H%x1f%B%x1f", "--shortstat"],
        capture_output=True, check=True,
    ).stdout.decode("utf-8", errors="replace")
    shas = []
    for rec in out.split("\x1e")[1:]:
        sha, message, stat = rec.split("\x1f")
        files = int(stat.split()[0]) if stat.strip() else 0
        if 0 < files <= max_files and parse_fix_evidence(message, sha):
            shas.append(sha)
    return shas


def history_spans(repo: Path, cache_file: Path) -> None:
    """What the history stage leaves in the home before the bugs stage runs: the span cache (untimed)."""
    cache = SpanCache(cache_file)
    mine_history(GitRepo(repo), "bench", "HEAD", cache=cache, workers=WORKERS)
    cache.close()


def ours(
    repo: Path, shas: list[str], max_files: int, workers: int, flags: tuple[str, ...] = BLAME_FLAGS,
    spans: Path | None = None, commit_graph: bool = True,
) -> tuple[dict[str, set[str]], dict[str, set[str]], float]:
    """(blame candidates, add-only fallback candidates) per fix, and the seconds it took.

    As the bugs stage runs it: a commit-graph written under a scratch home (timed), spans from
    the history stage's cache file `spans` (None: every blob parsed here, timed).
    """
    started = time.perf_counter()
    g = GitRepo(repo)
    blame: dict[str, set[str]] = {}
    fallback: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory() as home:
        if commit_graph:
            g.use_commit_graph(Path(home) / "objects")
        cache = SpanCache(spans)
        # SZZ only: candidates and the function each blamed line sat in; AFFECTS (the fix's own
        # changed functions) is not part of SZZ and not timed here. PyDriller blames every fix it is given,
        # so ours skips no rewrite either (no `max_definitions` bound).
        for r in analyze_fixes(g, "bench", commit_diffs(g, shas), max_files, workers, affects=False, flags=flags,
                               cache=cache, max_definitions=sys.maxsize):
            blame[r.sha] = {c.sha for c in r.candidates if c.method == "blame"}
            fallback[r.sha] = {c.sha for c in r.candidates if c.method != "blame"}
        cache.close()
    return blame, fallback, time.perf_counter() - started


def pydriller(repo: Path, shas: list[str]) -> tuple[dict[str, set[str]], float]:
    from pydriller import Git

    started = time.perf_counter()
    g = Git(str(repo))
    out = {}
    for sha in shas:
        found = g.get_commits_last_modified_lines(g.get_commit(sha))
        out[sha] = set().union(*found.values()) if found else set()
    g.clear()
    return out, time.perf_counter() - started


def _classify(b: set[str], plain: set[str]) -> str:
    if plain == b:
        return "moved lines: ours traces them to the commit that first wrote them (ours with plain -w agrees)"
    return "other: ours with plain -w still differs (line mapping of the diff, renames)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--limit", type=int, default=0, help="only the newest N fix commits (0: all)")
    ap.add_argument("--max-files", type=int, default=100)
    ap.add_argument("--workers", type=int, default=WORKERS, help="our threads running git blame (PyDriller has one)")
    ap.add_argument("--flags", default=" ".join(BLAME_FLAGS), help="our git blame flags (default: the pipeline's)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds, alternating which side goes first; figures are medians (ratios: of each round's)")
    ap.add_argument("--no-commit-graph", action="store_true", help="ours without the commit-graph the stage writes")
    args = ap.parse_args()
    shas = fix_commits(args.repo, args.max_files)
    if args.limit:
        shas = shas[: args.limit]
    load_before = os.getloadavg()
    flags = tuple(args.flags.split())
    graph = not args.no_commit_graph
    scratch = tempfile.TemporaryDirectory()
    spans = Path(scratch.name) / "spans.sqlite"
    history_spans(args.repo, spans)  # untimed: the history stage runs before the bugs stage
    rounds: list[dict[str, float]] = []
    sides = ("ours", "ours_parsing", "pydriller")
    for r in range(max(1, args.repeat)):
        got: dict[str, float] = {}
        for side in (sides if r % 2 == 0 else tuple(reversed(sides))):
            c = _cpu()
            if side == "ours":
                mine, fallback, got["ours"] = ours(args.repo, shas, args.max_files, args.workers, flags, spans, graph)
            elif side == "ours_parsing":
                _, _, got["ours_parsing"] = ours(args.repo, shas, args.max_files, args.workers, flags, None, graph)
            else:
                theirs, got["pydriller"] = pydriller(args.repo, shas)
            got[f"{side}_cpu"] = _cpu() - c
        got["load"] = os.getloadavg()[0]
        rounds.append(got)
    scratch.cleanup()
    t_ours, t_parse, t_pyd = (statistics.median(g[k] for g in rounds) for k in sides)
    cpu_ours, cpu_pyd = (statistics.median(g[k] for g in rounds) for k in ("ours_cpu", "pydriller_cpu"))
    plain, _, _ = ours(args.repo, shas, args.max_files, args.workers, ("-w",))  # untimed: explains disagreements
    same = [s for s in shas if mine.get(s, set()) == theirs.get(s, set())]
    same_with_fallback = [s for s in shas if mine.get(s, set()) | fallback.get(s, set()) == theirs.get(s, set())]
    same_plain = [s for s in shas if plain.get(s, set()) == theirs.get(s, set())]
    add_only = [s for s in shas if fallback.get(s) and not theirs.get(s)]
    disagreements = [
        {"fix": s[:12], "ours": sorted(x[:12] for x in mine.get(s, set()) | fallback.get(s, set())),
         "pydriller": sorted(x[:12] for x in theirs.get(s, set())),
         "why": _classify(theirs.get(s, set()), plain.get(s, set()))}
        for s in shas if mine.get(s, set()) != theirs.get(s, set())
    ]
    kinds: dict[str, int] = {}
    for d in disagreements:
        kinds[d["why"]] = kinds.get(d["why"], 0) + 1
    n = len(shas)
    print(json.dumps({
        "repo": str(args.repo), "fix_commits": n, "workers": args.workers, "flags": " ".join(flags),
        "ours_seconds": round(t_ours, 2), "pydriller_seconds": round(t_pyd, 2),
        "ours_fixes_per_second": round(n / t_ours, 1) if t_ours else None,
        "pydriller_fixes_per_second": round(n / t_pyd, 1) if t_pyd else None,
        "speedup": round(statistics.median(g["pydriller"] / g["ours"] for g in rounds), 1),
        "ours_parsing_spans_seconds": round(t_parse, 2),
        "speedup_parsing_spans": round(statistics.median(g["pydriller"] / g["ours_parsing"] for g in rounds), 1),
        "ours_cpu_seconds": round(cpu_ours, 2), "pydriller_cpu_seconds": round(cpu_pyd, 2),
        "cpu_speedup": round(statistics.median(g["pydriller_cpu"] / g["ours_cpu"] for g in rounds), 1),
        "rounds": [{k: round(v, 2) for k, v in g.items()} for g in rounds],
        "same_candidates_blame": round(len(same) / n, 3) if n else None,
        "same_candidates_with_add_only_fallback": round(len(same_with_fallback) / n, 3) if n else None,
        "same_candidates_plain_w": round(len(same_plain) / n, 3) if n else None,
        "add_only_fixes_with_fallback": len(add_only),
        "disagreement_kinds": kinds, "disagreements": disagreements[:50],
        "loadavg_before": [round(x, 2) for x in load_before], "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }, indent=2))


if __name__ == "__main__":
    main()
