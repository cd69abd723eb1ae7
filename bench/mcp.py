"""Latency of the MCP tools through the protocol, beside the same library calls, and a cold `ltm query`.

    .venv/bin/python bench/mcp.py [--home DIR] [--entries 100000] [--calls 30] [--cold 5] [--json]

Builds the synthetic store (bench/synthetic_store.py: hash embedder, dimension 384) unless --home
holds one, starts `ltm mcp` on it with the official SDK's stdio client, warms every tool once, then
calls each tool `--calls` times with arguments drawn from the store (functions, modules, files
that exist), timing each round trip through the protocol. The peer in the same run is the library:
the same `MemoryService` calls the server makes, in this process, on the same home. `remember`
stores a memory that names a function (so it links). Then `--cold` runs of `ltm query` from a fresh
process each, beside the warm library query. Prints p50 / p95 per tool and the cold times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
# this file is named like the SDK's package: take its folder off the path before importing `mcp`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
sys.path.insert(0, str(ROOT))
sys.path.append(str(BENCH))

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from synthetic_store import synthetic_home  # noqa: E402

from server.service import MemoryService  # noqa: E402

TOPICS = ["functions related to error handling", "retry with backoff on timeout", "how are sessions cached",
          "parse the request header", "close the socket connection", "encode and decode the token"]


def _stats(ms: list[float]) -> dict[str, float]:
    s = sorted(ms)
    return {"p50": round(statistics.median(s), 1), "p95": round(s[max(0, math.ceil(0.95 * len(s)) - 1)], 1),
            "max": round(s[-1], 1), "n": len(s)}


def plans(rows: dict[str, list[dict]], n: int) -> dict[str, list[dict[str, Any]]]:
    """tool -> `n` argument sets over entities that exist in the store, each call about another one."""
    fns, mods, files = rows["Function"], rows["Module"], rows["File"]
    f = lambda i: fns[(7919 * (i + 1)) % len(fns)]  # noqa: E731
    return {
        "query": [{"text": (f"what calls {f(i)['name']}" if i % 2 else TOPICS[i % len(TOPICS)]), "top_k": 5} for i in range(n)],
        "callers": [{"name": f(i)["name"]} for i in range(n)],
        "callees": [{"name": f(i)["name"]} for i in range(n)],
        "dependents": [{"module": mods[(31 * i) % len(mods)]["name"]} for i in range(n)],
        "history": [{"entity": f(i)["id"]} for i in range(n)],
        "impact": [{"entity": f(i)["id"], "depth": 2} for i in range(n)],
        "memories": [{"entity": files[(17 * i) % len(files)]["id"]} for i in range(n)],
        "repositories": [{} for _ in range(n)],
        "remember": [{"content": f"{f(i)['name']} must retry on timeout (bench note {time.time_ns()}-{i})",
                      "metadata": {"category": "episodic"}} for i in range(n)],
    }


def library_call(service: MemoryService, tool: str, a: dict[str, Any]) -> Any:
    """The call the server makes for `tool` (server/tools.py), in this process."""
    if tool == "query":
        return service.query(a["text"], "parallel", a["top_k"], 1, None)
    if tool in ("callers", "callees"):
        return service.calls(a["name"], tool, None, 1, 0.0)
    if tool == "dependents":
        return service.dependents(a["module"], None)
    if tool == "history":
        return service.history(a["entity"], None)
    if tool == "impact":
        return service.impact(a["entity"], None, a["depth"])
    if tool == "memories":
        return service.memories(a["entity"], None)
    if tool == "repositories":
        return service.repositories()
    if tool == "remember":
        return service.remember([(a["content"] + " (library)", a["metadata"])])
    raise ValueError(tool)


async def through_protocol(home: Path, todo: dict[str, list[dict]], log: Path) -> dict[str, list[float]]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "cli", "mcp", "--home", str(home)],
                                   env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))
    out: dict[str, list[float]] = {}
    with open(log, "a", encoding="utf-8") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for tool, calls in todo.items():  # warm-up: every tool once
                    res = await session.call_tool(tool, calls[-1] if tool != "remember" else
                                                  {**calls[-1], "content": calls[-1]["content"] + " (warm-up)"})
                    if res.is_error:
                        raise RuntimeError(f"{tool}: {res.content[0].text}")
                for tool, calls in todo.items():
                    ms = []
                    for a in calls:
                        t0 = time.perf_counter()
                        res = await session.call_tool(tool, a)
                        ms.append((time.perf_counter() - t0) * 1000)
                        if res.is_error:
                            raise RuntimeError(f"{tool}: {res.content[0].text}")
                    out[tool] = ms
    return out


def cold_queries(home: Path, runs: int, question: str) -> list[float]:
    """Wall seconds of `ltm query` from a fresh process, `runs` times."""
    ltm = str(Path(sys.executable).with_name("ltm"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([ltm, "query", question, "--home", str(home), "--top-k", "5"], check=True, env=env,
                       capture_output=True)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--home", type=Path, default=None, help="Reuse (or create) the synthetic home here.")
    ap.add_argument("--calls", type=int, default=30, help="Calls per tool.")
    ap.add_argument("--cold", type=int, default=5, help="Runs of a cold `ltm query`.")
    ap.add_argument("--tools", default=None, help="Comma-separated tools to time (default: all).")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with synthetic_home(args.home, args.entries) as (home, _, rows):
        todo = plans(rows, args.calls)
        question = f"what calls {todo['callers'][0]['name']}"
        if args.tools:
            todo = {t: todo[t] for t in args.tools.split(",")}
        load = [round(x, 2) for x in os.getloadavg()]
        protocol = asyncio.run(through_protocol(home.root, todo, Path("/tmp/bench-mcp-server.log")))
        library: dict[str, list[float]] = {}
        service = MemoryService(home)
        try:
            service.warm()
            for tool, calls in todo.items():
                library_call(service, tool, calls[-1] if tool != "remember" else {**calls[-1], "content": "warm"})
                ms = []
                for a in calls:
                    t0 = time.perf_counter()
                    library_call(service, tool, a)
                    ms.append((time.perf_counter() - t0) * 1000)
                library[tool] = ms
        finally:
            service.close()
        cold = cold_queries(home.root, args.cold, question)
        out = {
            "entries": args.entries, "calls_per_tool": args.calls, "transport": "stdio",
            "tools": {t: {"protocol_ms": _stats(protocol[t]), "library_ms": _stats(library[t])} for t in todo},
            "cold_ltm_query_s": {"median": round(statistics.median(cold), 2), "runs": [round(c, 2) for c in cold],
                                 "warm_library_query_ms": _stats(library["query"])["p50"] if "query" in library else None}
            if cold else None,
            "load_avg_start": load, "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{'tool':<14}{'protocol p50/p95 ms':>22}{'library p50/p95 ms':>22}")
    for t, v in out["tools"].items():
        p, lib = v["protocol_ms"], v["library_ms"]
        print(f"{t:<14}{p['p50']:>12.1f} /{p['p95']:>7.1f}{lib['p50']:>12.1f} /{lib['p95']:>7.1f}")
    c = out["cold_ltm_query_s"]
    if c:
        print(f"cold `ltm query`: median {c['median']} s over {len(c['runs'])} runs (warm library query p50 "
              f"{c['warm_library_query_ms']} ms)")
    print(f"load {load} -> {out['load_avg_end']}")


if __name__ == "__main__":
    main()
