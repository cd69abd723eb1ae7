"""`remember` in the library: online adds one after another, per add and per phase.

    .venv/bin/python bench/remember.py --home DIR [--adds 60] [--rounds 2] [--before REV] [--phases] [--json]

Each round copies `--home` into a scratch folder (the home is never changed) and, in a fresh
process, stores `--adds` memories one at a time through `MemoryService.remember`, the call the
MCP tool makes, each naming a function of the home (so it is linked and judged against its
neighbours like an agent's note). Per add: wall milliseconds and the adding thread's CPU
milliseconds (`time.thread_time`: the figure to compare on a machine shared with other work; the
LanceDB writer's own threads and the fold worker are not in it). `--phases` also times the add's
steps (embedding, links, neighbours, judging, the lake commit, vector rows, the LanceDB append,
the journal) by wrapping the functions `ltm.memory.online` calls, which costs a few microseconds
an add. `--before REV` runs the same rounds with the tree of git revision REV (`git archive`, put
first on PYTHONPATH) alternating with the current tree, so both see the same load. The folds that
adds schedule run as they would in a server (`--no-folds` leaves them out, `--fold-pause` sets how
long they wait for the adds to pause); the round's process CPU seconds include them (the round
waits for its last fold). Prints p50 / p95 per tree, or JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cold_query import _tree_of  # noqa: E402

# (module, function) an add calls, timed under --phases; a name missing from an older tree is skipped
PHASES = [
    ("ltm.memory.online", "_embed"), ("ltm.memory.online", "_links"), ("ltm.memory.online", "_stored_ids"),
    ("ltm.memory.evolution", "nearest_in_lake"), ("ltm.memory.evolution", "memory_links_cached"),
    ("ltm.memory.evolution", "evolve"), ("ltm.memory.online", "_evolution"), ("ltm.memory.online", "begin"),
    ("ltm.memory.online", "_commit"), ("ltm.memory.online", "entry_rows"), ("ltm.vectors", "VectorStore.upsert_rows"),
    ("ltm.memory.online", "end"),
]


def _child(home: Path, adds: int, phases: bool, folds: bool, pause: float | None) -> dict:
    """One round in this process (the child): the adds, timed."""
    import importlib
    import time
    from collections import defaultdict

    import polars as pl

    from ltm.home import Home
    from ltm.lake import Lake
    from server.service import MemoryService

    spent: dict[str, list[float]] = defaultdict(list)
    if phases:
        for module, name in PHASES:
            owner = importlib.import_module(module)
            if "." in name:
                cls, name = name.split(".")
                owner = getattr(owner, cls)
            if not hasattr(owner, name):
                continue
            real = getattr(owner, name)

            def timed(*a, _real=real, _label=name, **k):
                t = time.perf_counter()
                try:
                    return _real(*a, **k)
                finally:
                    spent[_label].append((time.perf_counter() - t) * 1000)

            setattr(owner, name, timed)
    import ltm.memory.compaction as compaction

    if not folds:
        compaction.schedule = lambda *a, **k: None
    if pause is not None and hasattr(compaction, "PAUSE_SECONDS"):
        compaction.PAUSE_SECONDS = pause
    names = pl.from_arrow(Lake(home / "lake").read("Function", columns=["name"])).head(adds + 1)["name"].to_list()
    service = MemoryService(Home(home))
    service.remember([(f"warm up: {names[0]} is slow on large inputs", {"category": "debugging"})])
    spent.clear()
    wall, cpu = [], []
    process = time.process_time()
    for i in range(adds):
        text = f"{names[(i + 1) % len(names)]} must retry on timeout (bench note {time.time_ns()}-{i})"
        t, c = time.perf_counter(), time.thread_time()
        service.remember([(text, {"category": "debugging"})])
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
    compaction.wait(Home(home))  # the folds the adds scheduled count in the process's CPU
    return {"wall": wall, "cpu": cpu, "phases": {k: statistics.median(v) for k, v in spent.items()},
            "process_cpu_s": time.process_time() - process, "load": os.getloadavg()[0]}


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        home, adds, phases, folds = Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5] == "1"
        pause = float(sys.argv[6]) if sys.argv[6] != "-" else None
        print(json.dumps(_child(home, adds, phases, folds, pause)))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--adds", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--before", help="A git revision to run beside the current tree.")
    ap.add_argument("--phases", action="store_true")
    ap.add_argument("--no-folds", action="store_true", help="Never fold the small files the adds leave.")
    ap.add_argument("--fold-pause", type=float, help="Seconds without an add before a due fold runs "
                    "(`ltm.memory.compaction.PAUSE_SECONDS`; 0: at once, as before the pause existed).")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ltm-remember-") as scratch:
        trees = {"after": ROOT}
        if args.before:
            trees = {"before": _tree_of(args.before, Path(scratch) / "before"), **trees}
        rounds: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                copy = Path(scratch) / "home"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(args.home, copy, symlinks=True)
                env = {**os.environ, "PYTHONPATH": str(tree)}
                out = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--child", str(copy), str(args.adds),
                     "1" if args.phases else "0", "0" if args.no_folds else "1",
                     "-" if args.fold_pause is None else str(args.fold_pause)],
                    check=True, capture_output=True, text=True, env=env, cwd=tree,
                ).stdout
                rounds[name].append(json.loads(out.strip().splitlines()[-1]))
    report = {
        name: [{"wall_p50": _pct(r["wall"], 0.5), "wall_p95": _pct(r["wall"], 0.95), "cpu_p50": _pct(r["cpu"], 0.5),
                "cpu_p95": _pct(r["cpu"], 0.95), "process_cpu_s": round(r["process_cpu_s"], 2), "load": round(r["load"], 1),
                "phases_p50": {k: round(v, 1) for k, v in r["phases"].items()}} for r in runs]
        for name, runs in rounds.items()
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, runs in report.items():
        for i, r in enumerate(runs, 1):
            print(f"{name:6s} round {i}: wall p50 {r['wall_p50']:6.1f} p95 {r['wall_p95']:6.1f} ms   "
                  f"thread CPU p50 {r['cpu_p50']:5.1f} p95 {r['cpu_p95']:5.1f} ms   process CPU {r['process_cpu_s']} s   "
                  f"load {r['load']}")
            if r["phases_p50"]:
                print("        phases p50 ms: " + ", ".join(f"{k} {v}" for k, v in r["phases_p50"].items()))


if __name__ == "__main__":
    main()
