"""The bugs stage on a real repository: a full run, a run with nothing new, a run after new commits.

    .venv/bin/python bench/bugs_stage.py PATH [--behind N] [--workers W]

Clones PATH into a temporary folder, resets the clone N first-parent commits behind its tip
(default 50), mines the history into a temporary home (the span cache the bugs stage shares),
then times the bugs stage:
  full         every fix commit diffed and blamed
  up_to_date   the same history again: SZZ results come from the lake, nothing is blamed
  incremental  after the clone moved to its tip: only the new fix commits are blamed
  full_again   `full=True` on the final history, to check the incremental rows equal a full run
Prints one JSON object: seconds and fixes blamed per run, whether the rows match, the load.

    .venv/bin/python bench/bugs_stage.py PATH --home HOME --stage history|bugs

One stage alone on PATH itself (not a clone) into a home that is kept (HOME/lake, HOME/cache),
for a large repository where the runs above take too long: `history` mines it in full, `bugs`
runs a full bugs stage on what `history` left. Prints seconds, commits or fixes per second and
the peak RSS of this process (KiB; parser processes and git not counted), so run each stage in
a process of its own to see each stage's peak. `--same-as OTHER_HOME` then says whether the
stage's tables (the history tables; or Bug, FIXES, AFFECTS, INTRODUCED_BY, FunctionDefects) equal
those another run left in OTHER_HOME, every column but the run times, and counts the rows that
differ: a change measured before / after, each with `PYTHONPATH` set to its checkout (the bugs
stage into two copies of one history home). `--chunk-commits N` mines with
`HistoryOptions(chunk_commits=N)` (default: the stage's); `--fresh-parse` queries every
version of every file whole (no span derived from a newer version's, one process): the reference
that the stage's rows must equal.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from ltm.stages.bugs import stage_bugs
from ltm.bugs.szz import WORKERS
from ltm.extract.history import version_chains
from ltm.extract.history.mine import CHUNK_COMMITS
from ltm.lake import Lake
from ltm.stages.history import TABLES as HISTORY_TABLES
from ltm.stages.history import HistoryOptions, stage_history

TABLES = ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY", "FunctionDefects")
RUN_TIMES = ("mined_at", "derived_at")  # when a row was made: differs between two runs of the same code
KEY = "bench"


def snapshot(lake: Lake, tables: tuple[str, ...] = TABLES) -> dict[str, list]:
    """Every row of `tables` as sorted JSON, the run times left out."""
    out = {}
    for t in tables:
        rows = lake.read(t, KEY).to_pylist()
        out[t] = sorted(json.dumps({k: v for k, v in r.items() if k not in RUN_TIMES}, sort_keys=True, default=str)
                        for r in rows)
    return out


def differences(mine: dict[str, list], other: dict[str, list]) -> dict[str, dict[str, int]]:
    """Per table that differs: rows only here, rows only in the other home."""
    out = {}
    for t in mine:
        a, b = set(mine[t]), set(other[t])
        if a != b or len(mine[t]) != len(other[t]):
            out[t] = {"only_here": len(a - b), "only_there": len(b - a), "rows_here": len(mine[t]),
                      "rows_there": len(other[t])}
    return out


def run(name: str, clone: Path, lake: Lake, cache: Path, workers: int, **kw: object) -> dict:
    started = time.perf_counter()
    st = stage_bugs(clone, KEY, lake, workers=workers, cache_dir=cache, **kw)
    return {"run": name, "seconds": round(time.perf_counter() - started, 2), "mode": st.mode,
            "fixes_blamed": st.fixes_blamed, "fixes_reused": st.fixes_reused,
            "bugs": st.rows.get("Bug", 0), "loadavg": round(os.getloadavg()[0], 2)}


def one_stage(
    repo: Path, home: Path, stage: str, workers: int, same_as: Path | None = None, chunk_commits: int = CHUNK_COMMITS,
    fresh_parse: bool = False,
) -> dict:
    lake, cache = Lake(home / "lake"), home / "cache"
    started = time.perf_counter()
    if stage == "history":
        if fresh_parse:  # the reference: no older version's spans derived from a newer one's
            version_chains.derive = lambda *a, **k: None
        opts = HistoryOptions(chunk_commits=chunk_commits, workers=1 if fresh_parse else 0)
        st = stage_history(repo, KEY, lake, cache, opts)
        done = {"commits": st.commits_mined, "rows_MODIFIES": st.rows.get("MODIFIES", 0)}
    else:
        st = stage_bugs(repo, KEY, lake, workers=workers, cache_dir=cache, full=True)
        done = {"fixes_blamed": st.fixes_blamed, "bugs": st.rows.get("Bug", 0),
                "skipped_merge": st.counts.get("skipped_merge", 0)}
    seconds = time.perf_counter() - started
    if same_as is not None:
        tables = tuple(t for t in HISTORY_TABLES if t != "history_cursor") if stage == "history" else TABLES
        diff = differences(snapshot(lake, tables), snapshot(Lake(same_as / "lake"), tables))
        done["rows_identical_to_other_home"] = not diff
        done["tables_that_differ"] = diff
    per_s = next(iter(done.values())) / seconds
    return {"repo": str(repo), "stage": stage, "seconds": round(seconds, 1), **done,
            "per_second": round(per_s, 1), "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "loadavg": [round(x, 2) for x in os.getloadavg()], "workers": workers}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--behind", type=int, default=50, help="first-parent commits the first runs lag the tip")
    ap.add_argument("--workers", type=int, default=WORKERS)
    ap.add_argument("--home", type=Path, help="with --stage: the home to mine into and keep")
    ap.add_argument("--stage", choices=("history", "bugs"), help="run this stage alone on PATH into --home")
    ap.add_argument("--same-as", type=Path, default=None,
                    help="with --stage: compare the stage's tables (run times aside) with this home's")
    ap.add_argument("--chunk-commits", type=int, default=CHUNK_COMMITS,
                    help="with --stage history: the most commits the parser processes take at once")
    ap.add_argument("--fresh-parse", action="store_true",
                    help="with --stage history: query every version whole, in this process (the reference for spans)")
    args = ap.parse_args()
    if args.stage:
        if args.home is None:
            ap.error("--stage needs --home")
        print(json.dumps(one_stage(args.repo, args.home, args.stage, args.workers, args.same_as, args.chunk_commits,
                                   args.fresh_parse)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-bugs-") as tmp:
        clone, home = Path(tmp) / "repo", Path(tmp) / "home"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(clone)], check=True)
        tip = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        subprocess.run(["git", "-C", str(clone), "reset", "-q", "--hard", f"HEAD~{args.behind}"], check=True)
        lake, cache = Lake(home / "lake"), home / "cache"
        started = time.perf_counter()
        stage_history(clone, KEY, lake, cache)
        history_s = round(time.perf_counter() - started, 2)
        runs = [run("full", clone, lake, cache, args.workers)]
        before = snapshot(lake)
        runs.append(run("up_to_date", clone, lake, cache, args.workers))
        same_rows = snapshot(lake) == before
        subprocess.run(["git", "-C", str(clone), "reset", "-q", "--hard", tip], check=True)
        stage_history(clone, KEY, lake, cache)
        runs.append(run("incremental", clone, lake, cache, args.workers))
        incremental = snapshot(lake)
        runs.append(run("full_again", clone, lake, cache, args.workers, full=True))
        print(json.dumps({
            "repo": str(args.repo), "behind": args.behind, "workers": args.workers, "history_seconds": history_s,
            "runs": runs, "up_to_date_rows_identical": same_rows,
            "incremental_rows_equal_full_run": incremental == snapshot(lake), "cpus": os.cpu_count(),
        }, indent=2))


if __name__ == "__main__":
    main()
