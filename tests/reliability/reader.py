"""A reader process for concurrency tests: python reader.py HOME OUT STOP

Until the file STOP appears, repeatedly opens the current graph read-only (node counts) and runs
a vector query; appends one JSON line per round to OUT: the Function count, hits, or the error.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ltm.graph.read import counts, open_current
from ltm.query import HybridLTM

home, out, stop = map(Path, sys.argv[1:4])
with open(out, "a", encoding="utf-8") as f:
    while True:
        last = stop.exists()
        try:
            with open_current(home / "graph") as conn:
                nodes, _ = counts(conn)
            hits = HybridLTM(home).query("validate the token signature", top_k=3)
            f.write(json.dumps({"functions": nodes["Function"], "hits": len(hits)}) + "\n")
        except Exception as e:  # the test fails on any error a reader meets
            f.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        f.flush()
        if last:
            break
        time.sleep(0.05)
