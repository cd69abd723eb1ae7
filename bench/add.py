"""Latency of `HybridLTM.add` (one memory stored online) on a store of >= 100,000 entries.

    .venv/bin/python bench/add.py [--entries 100000] [--adds 20] [--home DIR]

Builds a synthetic home (bench/synthetic_store.py: hash embedder, dimension 384), unless --home
names one built before, then adds `--adds` memories from one process, each naming a function of
the store so it links, then the same number again in one `add_many` call. Each add includes the
embedding of its text (hash embedder), linking, the lake commit and the LanceDB write. Prints one
JSON object: the first add (it builds the code index the linker reads), p50 / p95 / max of the
others, the `add_many` call in all and per memory, what a reader then pays to see the new memories
(the overlay's refresh after each add, `ltm.graph.overlay`), whether the graph build changed, and
in the same run what each add paid before #18: a copy of the current graph build.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_store import synthetic_home  # noqa: E402

from ltm.graph.build import current_build  # noqa: E402
from ltm.graph.read import open_view  # noqa: E402
from ltm.query import HybridLTM  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--adds", type=int, default=20)
    ap.add_argument("--home", type=Path, default=None, help="Reuse (or create) the synthetic home here.")
    args = ap.parse_args()
    with synthetic_home(args.home, args.entries) as (home, build, rows):
        names = [r["name"] for r in rows["Function"][: args.adds]]
        load = [round(x, 2) for x in os.getloadavg()]
        ms, links = [], []
        before = current_build(home.graph)
        refresh = []
        with HybridLTM(home) as memory, open_view(home.graph) as view:
            view.overlay  # a reader open before the adds
            for i, name in enumerate(names):
                t0 = time.perf_counter()
                out = memory.add(f"{name} must retry on timeout (note {i})", {"category": "episodic"})
                ms.append((time.perf_counter() - t0) * 1000)
                links.append(out["links"])
                t0 = time.perf_counter()
                assert out["graph_entity_id"] in view.overlay
                refresh.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            many = memory.add_many([(f"{name} must back off (batch note {i})", {"category": "episodic"})
                                    for i, name in enumerate(names)])
            many_ms = (time.perf_counter() - t0) * 1000
        current = current_build(home.graph)
        t0 = time.perf_counter()
        shutil.copyfile(current, current.with_name("bench-copy.kuzu"))
        copy_ms = (time.perf_counter() - t0) * 1000
        current.with_name("bench-copy.kuzu").unlink()
        rest = sorted(ms[1:])
        print(json.dumps({
            "entries": args.entries, "build": build, "adds": len(ms), "links_per_add": statistics.mean(links),
            "first_add_ms": round(ms[0], 1),
            "add_ms": {"p50": round(statistics.median(rest), 1), "p95": round(rest[math.ceil(0.95 * len(rest)) - 1], 1),
                       "max": round(rest[-1], 1)},
            "add_many_ms": round(many_ms, 1), "add_many_per_memory_ms": round(many_ms / len(many), 1),
            "add_many_links": sum(o["links"] for o in many),
            "overlay_refresh_ms": {"p50": round(statistics.median(refresh), 2), "max": round(max(refresh), 2)},
            "graph_build_changed": current != before,
            "graph_copy_ms_before_18": round(copy_ms, 1), "graph_build_mb": round(current.stat().st_size / 1e6, 1),
            "load_avg_start": load, "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        }, indent=2))


if __name__ == "__main__":
    main()
