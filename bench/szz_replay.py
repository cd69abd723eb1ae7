"""SZZ for every fix from ONE forward pass over the history (`ltm.bugs.line_origins`), against blame.

    PYTHONPATH=. .venv/bin/python bench/szz_replay.py PATH HOME [--fixes N] [--no-moves] [--workers W]
        [--order replay,blame] [--examples K]
    PYTHONPATH=. .venv/bin/python bench/szz_replay.py PATH HOME --against OTHER_HOME

HOME holds PATH's history under the key `bench` (`bench/bugs_stage.py PATH --home HOME --stage
history`); its fixes are found as the bugs stage finds them (`find_fixes`) and planned by
`szz.plan_fix` (the lines each fix deleted, or for an add-only fix its enclosing functions) on the
diffs the stage reads. With N, every k-th fix by sha (as `bench/szz_sample.py`), else all of them.

`replay` runs `LineOrigins` over HEAD's whole history and answers every planned fix when the pass
reaches it; `blame` runs `szz._blame` for the same jobs on W threads, as the stage does (with no
commit-graph unless GIT_ALTERNATE_OBJECT_DIRECTORIES names one). Both in this process, in the
order `--order` gives. `--no-moves` turns the pass's approximation of `blame -M` off (moved and
copied blocks within a file) to measure what it buys.

Prints one JSON object: each run's seconds, the load before it and the peak RSS before and after
it; the agreement (pass against blame): blamed lines given the same commit, the (fix, introducing
commit) pairs blame finds that the pass finds too, the pass's pairs blame does not find, the same
for add-only fixes; and K disagreeing lines (fix, path, line, blame's commit, the pass's).
`--against` runs nothing: it compares the SZZ results two full bugs-stage runs kept (`szz_fixes`),
e.g. this branch's (the pass) in HOME and main's (blame) in OTHER_HOME, over every fix.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ltm.bugs.szz as szz
from ltm.bugs import line_origins
from ltm.bugs.diffs import commit_diffs
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.spans import SpanCache
from ltm.extract.history.version_chains import SpanReader
from ltm.lake import Lake
from bench.szz_sample import fix_shas

KEY = "bench"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("home", type=Path)
    ap.add_argument("--fixes", type=int, default=0, help="a sample of N fixes (0: all)")
    ap.add_argument("--no-moves", action="store_true", help="no approximation of blame -M")
    ap.add_argument("--workers", type=int, default=szz.WORKERS)
    ap.add_argument("--order", default="replay,blame", help="which runs, in which order")
    ap.add_argument("--examples", type=int, default=30, help="disagreeing lines to print")
    ap.add_argument("--against", type=Path, default=None,
                    help="compare the bugs stage's kept SZZ results (szz_fixes) of HOME with this home's; no runs")
    args = ap.parse_args()
    if args.against is not None:
        print(json.dumps(compare_homes(args.home, args.against), indent=1))
        return
    repo, lake = GitRepo(args.repo), Lake(args.home / "lake")
    shas = fix_shas(lake)
    if args.fixes:
        shas = shas[:: max(1, len(shas) // args.fixes)][: args.fixes]
    started = time.perf_counter()
    cache = SpanCache(args.home / "cache" / "spans.sqlite")
    plans: dict[str, tuple[szz.FixResult, list[szz.Job]]] = {}
    with repo.blobs() as blobs:
        index = szz.EntityIndex(KEY, SpanReader(blobs, cache))
        for d in commit_diffs(repo, shas):
            plans[d.sha] = szz.plan_fix(d, index, szz.MAX_FILES, False)
        plan_s = time.perf_counter() - started
        out: dict = {"repo": str(args.repo), "fixes": len(plans), "plan_seconds": round(plan_s, 1),
                     "jobs": sum(len(j) for _, j in plans.values()), "moves": not args.no_moves}
        results: dict[str, dict[str, list]] = {}
        for which in args.order.split(","):
            out[f"loadavg_before_{which}"] = round(os.getloadavg()[0], 2)
            out[f"rss_kib_before_{which}"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            started = time.perf_counter()
            if which == "replay":
                if args.no_moves:
                    line_origins.MOVE_SCORE = 10**9
                rp = line_origins.LineOrigins(repo)
                got = {}
                for sha, state in rp.run({s for s, (_, jobs) in plans.items() if jobs}):
                    got[sha] = [rp.answer(state, j) for j in plans[sha][1]]
                out["replay_counts"] = dict(rp.counts)
                out["replay_commits"] = len(rp.shas)
            else:
                with ThreadPoolExecutor(max_workers=args.workers) as pool:
                    futures = {s: [pool.submit(szz._blame, repo, _parent(repo, s), j, szz.BLAME_FLAGS) for j in jobs]
                               for s, (_, jobs) in plans.items()}
                    got = {s: [f.result() for f in fs] for s, fs in futures.items()}
            out[f"{which}_seconds"] = round(time.perf_counter() - started, 1)
            out[f"rss_kib_after_{which}"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            results[which] = got
        cache.close()
        if "replay" in results and "blame" in results:
            out.update(compare(plans, results["blame"], results["replay"], index, args.examples))
            kinds = [categorise(repo, *x) for x in out["disagreeing_lines"]]
            out["disagreeing_lines"] = [[*x, k] for x, k in zip(out["disagreeing_lines"], kinds)]
            out["disagreement_kinds"] = dict(Counter(kinds))
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


_PARENTS: dict[str, str] = {}


def _parent(repo: GitRepo, sha: str) -> str:
    if not _PARENTS:
        for line in repo.run("rev-list", "--parents", "HEAD").splitlines():
            s, *ps = line.split()
            _PARENTS[s] = ps[0] if ps else ""
    return _PARENTS.get(sha, "")


def compare(plans: dict, blamed: dict, replayed: dict, index: szz.EntityIndex, examples: int) -> dict:
    same = total = 0
    bad: list = []
    kinds: Counter = Counter()
    want: set = set()
    got: set = set()
    for sha, (res, jobs) in plans.items():
        b, r = blamed.get(sha, [{}] * len(jobs)), replayed.get(sha, [{}] * len(jobs))
        for job, bl, rl in zip(jobs, b, r):
            if not job.lines:
                continue
            for n, x in bl.items():
                total += 1
                y = rl.get(n)
                if y is not None and y.sha == x.sha:
                    same += 1
                elif len(bad) < examples:
                    bad.append((sha, job.path, n, x.sha, y.sha if y else None))
        fb = szz.finish_fix(copy.copy(res), jobs, b, index)
        want |= {(sha, c.sha, c.method) for c in fb.candidates}
        fr = szz.finish_fix(copy.copy(res), jobs, r, index)
        got |= {(sha, c.sha, c.method) for c in fr.candidates}
    pw, pg = {(a, b) for a, b, _ in want}, {(a, b) for a, b, _ in got}
    addw = {(a, b) for a, b, m in want if m == "function_history"}
    addg = {(a, b) for a, b, m in got if m == "function_history"}
    return {"blamed_lines": total, "lines_same": round(same / max(1, total), 4),
            "pairs_blame": len(pw), "pairs_replay": len(pg),
            "pairs_found": round(len(pw & pg) / max(1, len(pw)), 4),
            "pairs_extra": round(len(pg - pw) / max(1, len(pg)), 4),
            "add_only_pairs_found": round(len(addw & addg) / max(1, len(addw)), 4),
            "disagreeing_lines": bad}


def categorise(repo: GitRepo, fix: str, path: str, line: int, blamed: str, replayed: str | None) -> str:
    """Why the pass and blame disagree on one line, by asking git again:
    `moves` when `git blame -w` without -M says what the pass says (blame -M followed a moved or copied
    block the pass did not); `merge` when the pass's answer is a merge or either commit is off the
    parent's first-parent chain (the line came through a merge's second parent); else `other` (the
    pass matched a block blame -M did not, or the diffs aligned lines differently)."""
    parent = _parent(repo, fix)
    plain = szz.blame_lines(repo, parent, path, [line], ("-w",)).get(line)
    if replayed is None:
        return "missing"
    if plain is not None and plain.sha == replayed:
        return "moves"
    if len(repo.run("rev-list", "--parents", "-n", "1", replayed).split()) > 2:
        return "merge"
    first_parent = set(repo.run("rev-list", "--first-parent", parent).split())
    if blamed not in first_parent or replayed not in first_parent:
        return "merge"
    return "other"


def compare_homes(mine: Path, other: Path) -> dict:
    """(fix, introducing commit) pairs of two full bugs-stage runs (`bench/bugs_stage.py --stage bugs`):
    the share of OTHER's pairs MINE has too, and of MINE's that OTHER lacks, overall and per method."""
    def pairs(home: Path) -> dict[str, set]:
        out: dict[str, set] = {"all": set(), "blame": set(), "function_history": set()}
        for r in Lake(home / "lake").read("szz_fixes", KEY, columns=["sha", "candidates"]).to_pylist():
            for c in r["candidates"] or []:
                out["all"].add((r["sha"], c["sha"]))
                out[c["method"]].add((r["sha"], c["sha"]))
        return out
    a, b = pairs(mine), pairs(other)
    return {k: {"pairs_here": len(a[k]), "pairs_there": len(b[k]), "found": round(len(a[k] & b[k]) / max(1, len(b[k])), 4),
                "extra": round(len(a[k] - b[k]) / max(1, len(a[k])), 4)} for k in a}


if __name__ == "__main__":
    main()
