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
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from ltm.stages.bugs import stage_bugs
from ltm.bugs.szz import WORKERS
from ltm.lake import Lake
from ltm.stages.history import stage_history

TABLES = ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY", "FunctionDefects")
KEY = "bench"


def snapshot(lake: Lake) -> dict[str, list]:
    return {t: sorted(json.dumps(r, sort_keys=True, default=str) for r in lake.read(t, KEY).to_pylist()) for t in TABLES}


def run(name: str, clone: Path, lake: Lake, cache: Path, workers: int, **kw: object) -> dict:
    started = time.perf_counter()
    st = stage_bugs(clone, KEY, lake, workers=workers, cache_dir=cache, **kw)
    return {"run": name, "seconds": round(time.perf_counter() - started, 2), "mode": st.mode,
            "fixes_blamed": st.fixes_blamed, "fixes_reused": st.fixes_reused,
            "bugs": st.rows.get("Bug", 0), "loadavg": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--behind", type=int, default=50, help="first-parent commits the first runs lag the tip")
    ap.add_argument("--workers", type=int, default=WORKERS)
    args = ap.parse_args()
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
