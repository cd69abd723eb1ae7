"""Warm questions with numpy's BLAS on its default threads and on one (`ltm.blas_threads`).

    .venv/bin/python bench/blas_threads.py --home DIR [--rounds 4] [--json]

In one process (a warm server's), asks the same questions through `MemoryService.query` with the
forward pass of the question (`ltm.embed.minilm`) and the online add's neighbour search run as
shipped (one BLAS thread) and with that limit taken off (BLAS's default, a thread per core),
alternating round by round so both see the same load. A home ingested with the default `local`
embedder shows the forward pass; a `hash` home shows nothing (no model runs). Also times one
vector against 20,000 stored ones (the neighbour search of an online add) both ways. Prints
p50 / p95 ms per setting and the load average: the difference grows with the other work on the
machine, so run it beside what an agent's machine runs (builds, tests), and say the load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUESTIONS = [
    "where is the configuration file parsed", "how are environment variables read for parameters",
    "which function formats the help text for options", "what calls make_context",
    "how does the shell completion find the command",
]


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import numpy as np

    from ltm.blas_threads import one_blas_thread
    from ltm.embed import minilm
    from ltm.home import Home
    from server.service import MemoryService

    service = MemoryService(Home(args.home))
    service.query("warm up", top_k=5)
    settings = {"default BLAS threads": contextlib.nullcontext, "one BLAS thread": one_blas_thread}
    query: dict[str, list[float]] = {k: [] for k in settings}
    product: dict[str, list[float]] = {k: [] for k in settings}
    stored = np.random.default_rng(0).random((20_000, 384), dtype=np.float32)
    vector = stored[0]
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for name, limit in settings.items():
            minilm.one_blas_thread = limit  # what `embed` enters around the forward pass
            for q in QUESTIONS:
                t = time.perf_counter()
                service.query(q, top_k=5)
                query[name].append((time.perf_counter() - t) * 1000)
            for _ in range(20):
                t = time.perf_counter()
                with limit():
                    stored @ vector
                product[name].append((time.perf_counter() - t) * 1000)
    minilm.one_blas_thread = one_blas_thread
    load.append(os.getloadavg()[0])
    report = {name: {"query_p50": _pct(query[name], 0.5), "query_p95": _pct(query[name], 0.95),
                     "product_p50": _pct(product[name], 0.5), "product_p95": _pct(product[name], 0.95)}
              for name in settings}
    if args.json:
        print(json.dumps({"settings": report, "load": load}, indent=2))
        return
    for name, r in report.items():
        print(f"{name:22s} warm query p50 {r['query_p50']:7.1f} p95 {r['query_p95']:7.1f} ms   "
              f"one vector x 20,000 p50 {r['product_p50']:5.1f} p95 {r['product_p95']:5.1f} ms")
    print(f"load {load[0]:.1f} -> {load[1]:.1f} (cores: {os.cpu_count()})")


if __name__ == "__main__":
    main()
