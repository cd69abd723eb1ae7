"""Query latency per strategy on a store of >= 100,000 entries, against the raw store floors.

    .venv/bin/python bench/query.py [--entries 100000] [--rounds 5] [--home DIR] [--top-k 10]

Builds a synthetic home (bench/synthetic_store.py: real Kuzu build, real LanceDB with its vector
index), unless --home names one built before; warms every strategy up on the question set once,
then times `rounds` passes. Prints one JSON object: p50 / p95 ms per strategy, and in the same run
the floors: one LanceDB vector search, one LanceDB full-text search, one Kuzu lookup by id.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_store import REPO, build_store  # noqa: E402

from ltm.embed.providers import HashEmbedder  # noqa: E402
from ltm.home import Home  # noqa: E402
from ltm.query import HybridLTM  # noqa: E402
from ltm.retrieval.strategies import STRATEGIES  # noqa: E402


def questions(rows: dict[str, list[dict]], k: int = 24) -> list[str]:
    """A mix of the question kinds the issue names, over names that exist in the store."""
    fns, files = rows["Function"], rows["File"]
    step = max(1, len(fns) // k)
    out = []
    for i in range(0, k // 8):
        f = fns[(i + 1) * step]
        out += [
            f"what calls {f['name']}", f"who changed {f['name']} last and why", f"what uses module {rows['Module'][i]['name']}",
            f"commits by {['Ada', 'Grace', 'Linus'][i % 3]}", f"how was bug #{i * 7} fixed",
            f"memories about file {files[i]['path']}", "functions related to error handling",
            f"{f['docstring'][:40]}",
        ]
    return out


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs), q))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--home", type=Path, default=None, help="Reuse (or create) the synthetic home here.")
    args = ap.parse_args()
    tmp = None
    if args.home is None:
        tmp = tempfile.TemporaryDirectory()
        args.home = Path(tmp.name) / "home"
    from synthetic_store import lake_rows

    if (args.home / "registry.json").exists():
        rows, build = lake_rows(args.entries), {"reused": True}
    else:
        home, build, rows = build_store(args.home, args.entries)
    home = Home(args.home)
    qs = questions(rows)
    out: dict = {"entries": None, "questions": len(qs), "rounds": args.rounds, "top_k": args.top_k, "build": build,
                 "load_avg": os.getloadavg()[0]}
    with HybridLTM(home) as memory:
        out["entries"] = memory.vectors.count()
        for s in STRATEGIES:  # warm-up: open the graph, load the FTS extension, touch the indexes
            for q in qs:
                memory.query(q, strategy=s, top_k=args.top_k)
        lat: dict[str, list[float]] = {s: [] for s in STRATEGIES}
        for _ in range(args.rounds):
            for s in STRATEGIES:
                for q in qs:
                    t0 = time.perf_counter()
                    memory.query(q, strategy=s, top_k=args.top_k)
                    lat[s].append((time.perf_counter() - t0) * 1000)
        out["strategies_ms"] = {s: {"p50": round(pct(v, 50), 1), "p95": round(pct(v, 95), 1), "max": round(max(v), 1)}
                                for s, v in lat.items()}
        # Floors, same run: the raw store calls every strategy is built from.
        tbl = memory.vectors.table()
        emb = HashEmbedder(384)
        floors: dict[str, list[float]] = {"lancedb_vector_search": [], "lancedb_fts": [], "kuzu_id_lookup": []}
        g = memory._sources().graph()
        for q in qs * args.rounds:
            v = emb.embed([q])[0]
            t0 = time.perf_counter()
            tbl.search(v).distance_type("cosine").limit(args.top_k).select(["vector_id", "_distance"]).to_list()
            floors["lancedb_vector_search"].append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            tbl.search(q, query_type="fts").limit(args.top_k).select(["vector_id", "_score"]).to_list()
            floors["lancedb_fts"].append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            g.run("MATCH (n:Function) WHERE n.id = $id RETURN n.name", {"id": rows["Function"][7]["id"]})
            floors["kuzu_id_lookup"].append((time.perf_counter() - t0) * 1000)
        out["floors_ms"] = {k: {"p50": round(pct(v, 50), 2), "p95": round(pct(v, 95), 2)} for k, v in floors.items()}
    out["load_avg_end"] = os.getloadavg()[0]
    out["target_p95_ms"] = 150
    out["all_within_target"] = all(v["p95"] <= 150 for v in out["strategies_ms"].values())
    print(json.dumps(out, indent=2))
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
