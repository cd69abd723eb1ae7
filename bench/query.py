"""Query latency per strategy on a store of >= 100,000 entries, against the raw store floors.

    .venv/bin/python bench/query.py [--entries 100000] [--rounds 5] [--home DIR] [--top-k 10]
                                    [--graph-engine kuzu|ladybug|both]

Builds a synthetic home (bench/synthetic_store.py: real Kuzu build, real LanceDB with its vector
index), unless --home names one built before. Times the first query of a fresh HybridLTM (opening
the build, loading its per-label index), warms every strategy up on one question set, then times
`rounds` passes, each over a question set about other functions, modules, bugs and files (nothing
a pass asks was asked before). Prints one JSON object: p50 / p95 / max ms per strategy, the load
average before and after, where the time goes per strategy (Kuzu and LanceDB calls per question,
ms in each), and in the same run the floors: one LanceDB vector search, one LanceDB full-text
search, one graph lookup by id.

`--graph-engine both` (the default) measures Kuzu and LadybugDB side by side in one run: one child
process per engine (the two cannot load in one process) on the same home, each first rebuilding
the graph from the same lake with its engine (`graph_build_s`), then timing the same questions.
Neither engine's build has a full-text index: graph_only ranks text with LanceDB's on both.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_store import synthetic_home  # noqa: E402

from ltm.embed.hashing import HashEmbedder  # noqa: E402
from ltm.graph.build import build_graph, current_build  # noqa: E402
from ltm.home import Home  # noqa: E402
from ltm.lake import Lake  # noqa: E402
from ltm.query import HybridLTM  # noqa: E402
from ltm.retrieval.strategies import STRATEGIES  # noqa: E402


AUTHORS = ["Ada", "Grace", "Linus", "Barbara", "Ken", "Margaret"]
TOPICS = ["functions related to error handling", "retry with backoff on timeout", "how are sessions cached",
          "parse the request header", "close the socket connection", "encode and decode the token"]


def questions(rows: dict[str, list[dict]], k: int = 24, round_no: int = 0) -> list[str]:
    """A mix of the question kinds the issue names, over names that exist in the store; each round other subjects."""
    fns, files, mods, bugs = rows["Function"], rows["File"], rows["Module"], rows["Bug"]
    out = []
    for i in range(k // 8):
        j = round_no * (k // 8) + i
        f = fns[(7919 * (j + 1)) % len(fns)]
        out += [
            f"what calls {f['name']}", f"who changed {f['name']} last and why", f"what uses module {mods[(31 * j) % len(mods)]['name']}",
            f"commits by {AUTHORS[j % len(AUTHORS)]}", f"how was bug {bugs[(13 * j) % len(bugs)]['ref']} fixed",
            f"memories about file {files[(17 * j) % len(files)]['path']}", TOPICS[j % len(TOPICS)],
            f"{f['docstring'][:40]}",
        ]
    return out


class Profile:
    """Time spent in the graph engine (every GraphView query) and LanceDB (search, row lookups), per strategy."""

    def __init__(self):
        from ltm.graph import view
        from ltm.retrieval import vector_side

        self.calls: dict[str, list[float]] = {"graph": [], "lancedb": []}
        for cls, names, kind in ((view.GraphView, ("run",), "graph"),
                                 (vector_side.VectorSide, ("search", "text_search", "rows"), "lancedb")):
            for name in names:
                setattr(cls, name, self._timed(getattr(cls, name), kind))

    def _timed(self, fn, kind):
        calls = self.calls

        def wrapper(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                calls[kind].append((time.perf_counter() - t0) * 1000)
        return wrapper

    def take(self) -> dict[str, list[float]]:
        out = {k: list(v) for k, v in self.calls.items()}
        for v in self.calls.values():
            v.clear()
        return out


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs), q))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--home", type=Path, default=None, help="Reuse (or create) the synthetic home here.")
    ap.add_argument("--graph-engine", choices=["kuzu", "ladybug", "both"], default="both",
                    help="The engine to measure, or both side by side (one child process each).")
    args = ap.parse_args()
    if args.graph_engine == "both":
        print(json.dumps(both(args), indent=2, default=str))
        return
    os.environ["LTM_GRAPH_ENGINE"] = args.graph_engine  # a new synthetic home is built with it
    with synthetic_home(args.home, args.entries) as (home, build, rows):
        t0 = time.perf_counter()  # rebuild from the same lake with this engine: the graph-build figure
        stats = build_graph(home.graph, Lake(home.lake), engine_name=args.graph_engine)
        build = {**build, "graph_engine": args.graph_engine, "graph_build_s": round(time.perf_counter() - t0, 2),
                 "graph_build_mode": stats.mode, "graph_build_file": current_build(home.graph).name}
        print(json.dumps(measure(args, home, build, rows), indent=2, default=str))


def both(args: argparse.Namespace) -> dict:
    """Each engine in its own process, one after the other, on one home; and their figures side by side."""
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        out = {}
        for engine in ("kuzu", "ladybug"):
            cmd = [sys.executable, __file__, "--graph-engine", engine, "--home", str(home), "--entries",
                   str(args.entries), "--rounds", str(args.rounds), "--top-k", str(args.top_k)]
            out[engine] = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    k, lb = out["kuzu"], out["ladybug"]
    out["side_by_side"] = {
        "graph_build_s": {"kuzu": k["build"]["graph_build_s"], "ladybug": lb["build"]["graph_build_s"]},
        "first_query_ms": {"kuzu": k["first_query_ms"], "ladybug": lb["first_query_ms"]},
        **{f"{s} p50/p95 ms": {"kuzu": [k["strategies_ms"][s]["p50"], k["strategies_ms"][s]["p95"]],
                               "ladybug": [lb["strategies_ms"][s]["p50"], lb["strategies_ms"][s]["p95"]]}
           for s in STRATEGIES},
        "graph_id_lookup p50/p95 ms": {e: [out[e]["floors_ms"]["graph_id_lookup"]["p50"],
                                           out[e]["floors_ms"]["graph_id_lookup"]["p95"]] for e in ("kuzu", "ladybug")},
    }
    return out


def measure(args: argparse.Namespace, home: Home, build: dict, rows: dict[str, list[dict]]) -> dict:
    """Latencies per strategy and the floors, as the JSON object `main` prints."""
    warm = questions(rows, round_no=args.rounds)  # subjects no timed round asks about
    out: dict = {"entries": None, "questions_per_round": len(warm), "rounds": args.rounds, "top_k": args.top_k,
                 "build": build, "load_avg_start": [round(x, 2) for x in os.getloadavg()]}
    prof = Profile()
    with HybridLTM(home) as memory:
        out["entries"] = memory.vectors.count()
        t0 = time.perf_counter()  # a fresh process's first graph query: open the build, read the label index
        memory.query(warm[0], strategy="graph_only", top_k=args.top_k)
        out["first_query_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        for s in STRATEGIES:  # warm-up: the embedder, touch the indexes
            for q in warm:
                memory.query(q, strategy=s, top_k=args.top_k)
        prof.take()
        lat: dict[str, list[float]] = {s: [] for s in STRATEGIES}
        spent: dict[str, dict[str, list[float]]] = {s: {"graph": [], "lancedb": []} for s in STRATEGIES}
        for r in range(args.rounds):
            qs = questions(rows, round_no=r)
            for s in STRATEGIES:
                for q in qs:
                    t0 = time.perf_counter()
                    memory.query(q, strategy=s, top_k=args.top_k)
                    lat[s].append((time.perf_counter() - t0) * 1000)
                for kind, v in prof.take().items():
                    spent[s][kind] += v
        out["strategies_ms"] = {s: {"p50": round(pct(v, 50), 1), "p95": round(pct(v, 95), 1), "max": round(max(v), 1)}
                                for s, v in lat.items()}
        n = args.rounds * len(warm)
        out["profile_per_question"] = {
            s: {"total_ms": round(sum(lat[s]) / n, 1),
                **{f"{kind}_calls": round(len(v) / n, 1) for kind, v in spent[s].items()},
                **{f"{kind}_ms": round(sum(v) / n, 1) for kind, v in spent[s].items()}}
            for s in STRATEGIES}
        # Floors, same run: the raw store calls every strategy is built from.
        tbl = memory.vectors.table()
        emb = HashEmbedder(384)
        floors: dict[str, list[float]] = {"lancedb_vector_search": [], "lancedb_fts": [], "graph_id_lookup": []}
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
            floors["graph_id_lookup"].append((time.perf_counter() - t0) * 1000)
        out["floors_ms"] = {k: {"p50": round(pct(v, 50), 2), "p95": round(pct(v, 95), 2)} for k, v in floors.items()}
    out["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    out["target_p95_ms"] = 150
    out["all_within_target"] = all(v["p95"] <= 150 for v in out["strategies_ms"].values())
    return out


if __name__ == "__main__":
    main()
