"""Time one full ingest of a repository, stage by stage, against the raw `git log` floor.

    .venv/bin/python bench/ingest.py PATH [--embedder hash|local]

Prints one JSON object: seconds per stage (from the run's metadata), the whole run, and the time
`git log --format=...` alone takes over the same history, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from ltm.home import Home
from ltm.repos import register_local
from pipelines.run import ingest_partitions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--embedder", default="hash")
    args = ap.parse_args()
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(args.repo), "log", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%B"],
                   stdout=subprocess.DEVNULL, check=True)
    floor = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        home = Home.resolve(Path(tmp) / "home").create()
        key = register_local(home, args.repo)
        started = time.perf_counter()
        [summary] = ingest_partitions(home, [key], args.embedder)
        total = time.perf_counter() - started
    meta = summary.metadata
    print(json.dumps({
        "repo": str(args.repo),
        "commits": meta["commits"]["commits"],
        "functions": meta["code_entities"].get("rows_Function"),
        "git_log_floor_s": round(floor, 3),
        "commits_stage_s": meta["commits"]["seconds"],
        "code_stage_s": meta["code_entities"]["seconds"],
        "graph_build_s": meta["graph"]["seconds"],
        "ingest_total_s": round(total, 2),
        "embedder": args.embedder,
    }, indent=2))


if __name__ == "__main__":
    main()
