"""Full graph builds of one home's lake, timed: what `build_graph` costs with the code measured.

    PYTHONPATH=$PWD .venv/bin/python bench/graph_build.py HOME [--runs 3]

Each run builds the whole graph anew from the home's lake (`reuse=False, amend=False`: no kept
build, no amend) and switches CURRENT to it, as the `graph` asset does; prints one JSON object per
run: seconds, nodes and edges, the load average when it started, and, where the code measured
reports them, the seconds of its full-text indexes (`fts_seconds`: builds before they were dropped).
`PYTHONPATH` picks the checkout measured, so two checkouts can alternate on one home. The home is
written (a new build per run; old ones pruned as usual): use a copy of a home you keep.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from ltm.graph.build import build_graph
from ltm.home import Home
from ltm.lake import Lake


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("home", type=Path, help="A home with a lake (it gets new graph builds).")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    home = Home.resolve(args.home)
    for _ in range(args.runs):
        load = os.getloadavg()[0]
        started = time.perf_counter()
        stats = build_graph(home.graph, Lake(home.lake), reuse=False, amend=False)
        print(json.dumps({
            "code": os.environ.get("PYTHONPATH"), "mode": stats.mode, "seconds": round(stats.seconds, 3),
            "wall_s": round(time.perf_counter() - started, 3),
            "fts_seconds": round(stats.fts_seconds, 3) if hasattr(stats, "fts_seconds") else None,
            "fts_indexes": getattr(stats, "fts_indexes", None),
            "nodes": sum(stats.nodes.values()), "edges": sum(stats.rels.values()), "load1": round(load, 2),
        }), flush=True)


if __name__ == "__main__":
    main()
