"""What isolation costs a query, and that it holds: namespaces, private memories and expiry (#19).

    .venv/bin/python bench/isolation.py [--entries 20000] [--memories 20000] [--rounds 3]

Builds a synthetic home (bench/synthetic_store.py, hash embedder) and adds `--memories` memories
to its `memories` partition: half shared, the rest in 10 namespaces, a tenth of those private to
one of 5 agents, and 1 in 20 with an expiry (half of them past). Embeds them, builds the graph,
writes the vectors, then runs the same questions (words of the memories) with every strategy
three ways, in one process: as namespace `ns3` and agent `agent1` (isolation on), as the default
scope (shared only), and with the isolation switched off (no LanceDB prefilter, no hidden set:
the cost before #19). Prints one JSON object: p50 / p95 ms per strategy and way, the hits that
came from memories the scope may not see (must be 0 with isolation on; the off run shows how
many it would have leaked), and what `GraphView.hidden_memories` costs: its first call (reading
the build's non-shared memories; the overlay already read) and the next ones (cached per scope).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_store import WORDS, synthetic_home  # noqa: E402

from ltm import ids  # noqa: E402
from ltm.embed.hashing import HashEmbedder  # noqa: E402
from ltm.graph.build import build_graph  # noqa: E402
from ltm.graph.read import open_view  # noqa: E402
from ltm.graph.view import GraphView  # noqa: E402
from ltm.lake import Lake  # noqa: E402
from ltm.memory.records import MEMORY_PARTITION  # noqa: E402
from ltm.query import HybridLTM  # noqa: E402
from ltm.retrieval.vector_side import VectorSide  # noqa: E402
from ltm.stages.embeddings import embed_repo  # noqa: E402
from ltm.vectors import VectorStore, vector_rows  # noqa: E402
from ltm.visibility import Scope  # noqa: E402

STRATEGIES = ("vector_first", "graph_first", "parallel", "vector_only", "graph_only")


def memory_rows(n: int, now: datetime, seed: int = 11) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n):
        text = " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), 14))
        mid = ids.memory_id("iso", str(m))
        ns = "shared" if m % 2 == 0 else f"ns{m % 10}"
        private = ns != "shared" and m % 10 == 1 and (m // 10) % 10 == 0
        expires = (now + timedelta(days=1 if m % 40 == 0 else -1)) if m % 20 == 0 else None
        rows.append({"id": mid, "repo": MEMORY_PARTITION, "vector_id": ids.vector_id(mid), "memory_type": "semantic",
                     "category": "memory", "content": text, "source": "iso", "created_at": now - timedelta(days=2),
                     "text": text, "namespace": ns, "agent_id": f"agent{m % 5}", "private": private,
                     "expires_at": expires})
    return rows


def add_memories(home, n: int) -> dict[str, dict]:
    now = datetime.now(timezone.utc)
    rows = memory_rows(n, now)
    lake = Lake(home.lake)
    with lake.write(MEMORY_PARTITION) as w:
        w.write("Memory", rows)
    embed_repo(lake, MEMORY_PARTITION, HashEmbedder(384), home.cache / "embeddings")
    build_graph(home.graph, lake, reuse=False)
    VectorStore(home.vectors).upsert_repo(MEMORY_PARTITION, vector_rows(lake, MEMORY_PARTITION))
    return {r["id"]: r for r in rows}


def run(home, questions: list[str], scope: dict, top_k: int) -> dict[str, dict]:
    out = {}
    with HybridLTM(home) as ltm:
        ltm.query(questions[0], **scope)  # warm: model, views, indexes
        for strategy in STRATEGIES:
            ms, hits = [], []
            for q in questions:
                t0 = time.perf_counter()
                got = ltm.query(q, strategy=strategy, top_k=top_k, **scope)
                ms.append((time.perf_counter() - t0) * 1000)
                hits += [h["graph_entity_id"] for h in got] + [n["id"] for h in got for n in h.get("neighbours", ())]
            out[strategy] = {"p50_ms": round(float(np.percentile(ms, 50)), 1),
                             "p95_ms": round(float(np.percentile(ms, 95)), 1), "ids": hits}
    return out


def leaks(result: dict[str, dict], rows: dict[str, dict], scope: Scope) -> dict[str, int]:
    return {s: sum(1 for i in r.pop("ids") if i in rows and not scope.sees_row(rows[i])) for s, r in result.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=20_000)
    ap.add_argument("--memories", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3, help="Questions per strategy = 10 x rounds.")
    ap.add_argument("--top-k", type=int, default=10)
    args = ap.parse_args()
    with synthetic_home(None, args.entries) as (home, _build, _rows):
        t0 = time.perf_counter()
        rows = add_memories(home, args.memories)
        setup_s = time.perf_counter() - t0
        mem = list(rows.values())
        questions = [" ".join(mem[(97 * j) % len(mem)]["content"].split()[:5]) for j in range(10 * args.rounds)]
        with open_view(home.graph) as view:
            view.overlay  # its first read of the memories partition is every reader's, with or without #19
            t0 = time.perf_counter()
            view.hidden_memories(Scope.of("ns3", "agent1"))
            first_ms = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            for _ in range(100):
                hidden = view.hidden_memories(Scope.of("ns3", "agent1"))
            next_ms = (time.perf_counter() - t0) * 10
        on = run(home, questions, {"namespace": "ns3", "agent_id": "agent1"}, args.top_k)
        default = run(home, questions, {}, args.top_k)
        # the isolation switched off: what a query cost (and answered) before #19
        scope_on, scope_default = Scope.of("ns3", "agent1"), Scope.of()
        GraphView.hidden_memories = lambda self, scope: set()
        VectorSide._where = lambda self, filters, scope: filters.lance_where()
        rule, Scope.sees_row = Scope.sees_row, lambda self, row: True
        off = run(home, questions, {"namespace": "ns3", "agent_id": "agent1"}, args.top_k)
        Scope.sees_row = rule  # back to the rule, to count what the off run leaked
        print(json.dumps({
            "entries": args.entries, "memories": args.memories, "questions_per_strategy": len(questions),
            "setup_s": round(setup_s, 1), "load": [round(x, 2) for x in os.getloadavg()],
            "hidden_for_ns3_agent1": len(hidden), "hidden_first_call_ms": round(first_ms, 1),
            "hidden_next_calls_ms": round(next_ms, 2),
            "leaked_hits": {"ns3_agent1": leaks(on, rows, scope_on), "default": leaks(default, rows, scope_default),
                            "isolation_off": leaks(off, rows, scope_on)},
            "latency": {"ns3_agent1": on, "default": default, "isolation_off": off},
        }, indent=1))


if __name__ == "__main__":
    main()
