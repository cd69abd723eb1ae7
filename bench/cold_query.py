"""A cold `ltm query`: one question from a fresh process, as an agent's shell tool runs it.

    .venv/bin/python bench/cold_query.py --home DIR [--home DIR ...] [--runs 5] [--before REV] [--json]

For every home, `--runs` times: `ltm query QUESTION --home DIR --top-k 5` in a new process,
wall seconds and the CPU seconds (user + system) the process used; CPU time is the figure to
compare on a machine shared with other work, wall time the one a user waits. `--before REV`
runs the same commands with the tree of git revision REV (`git archive` into a temporary
folder, put first on PYTHONPATH) in the same sitting, alternating with the current tree, so the
two see the same load. The floor beside them: a fresh Python that only imports numpy, pyarrow
and polars (what any query needs to read the stores). Prints medians, or JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "where is the configuration file parsed"


def _run(cmd: list[str], tree: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one command whose imports come from `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, capture_output=True, cwd=tree)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _tree_of(rev: str, into: Path) -> Path:
    """The files of git revision `rev` of this repository, unpacked into `into`."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def _median(xs: list[float]) -> float:
    return round(statistics.median(xs), 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, action="append", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--before", help="A git revision to run beside the current tree.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    py = sys.executable
    load = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"after": ROOT}
        if args.before:
            trees["before"] = _tree_of(args.before, Path(tmp) / "before")
        out: dict = {"question": args.question, "runs": args.runs, "load_avg_start": load, "homes": {}}
        floor = [_run([py, "-c", "import numpy, pyarrow, polars"], ROOT) for _ in range(args.runs)]
        out["floor_imports"] = {"wall_s": _median([w for w, _ in floor]), "cpu_s": _median([c for _, c in floor])}
        for home in args.home:
            got: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, tree in trees.items():  # alternate, so both see the same load
                    got[name].append(_run([py, "-m", "cli", "query", args.question, "--home", str(home),
                                           "--top-k", "5"], tree))
            out["homes"][str(home)] = {name: {"wall_s": _median([w for w, _ in v]), "cpu_s": _median([c for _, c in v]),
                                              "wall_runs": [round(w, 2) for w, _ in v]} for name, v in got.items()}
        out["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(out, indent=2))
        return
    f = out["floor_imports"]
    print(f"floor (a Python importing numpy, pyarrow, polars): wall {f['wall_s']} s, CPU {f['cpu_s']} s")
    for home, v in out["homes"].items():
        for name, r in v.items():
            print(f"{home:<40} {name:<7} wall {r['wall_s']:>6} s  CPU {r['cpu_s']:>6} s  runs {r['wall_runs']}")
    print(f"load {out['load_avg_start']} -> {out['load_avg_end']}")


if __name__ == "__main__":
    main()
