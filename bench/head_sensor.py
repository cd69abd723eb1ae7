"""One `head_moved_sensor` tick when some remotes hang: heads read in turn vs in parallel.

    .venv/bin/python bench/head_sensor.py [--hung 4] [--local 4] [--timeout 3]

Registers `--hung` URL repositories on a local server that accepts connections and never answers,
and `--local` small local repositories, then times reading every head two ways with the same
per-remote timeout: one `current_head` after another (what the sensor did before; it also had no
timeout shorter than git's hour), and `read_heads` (threads, one timeout per round of 8). Prints one
JSON object. The floor is one timeout: no tick can learn that a remote hangs sooner.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltm.errors import LtmError  # noqa: E402
from ltm.home import Home  # noqa: E402
from ltm.repos import add_repository, current_head  # noqa: E402
from pipelines.automation import read_heads  # noqa: E402
from tests.builder import RepoBuilder  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hung", type=int, default=4)
    ap.add_argument("--local", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=3.0)
    args = ap.parse_args()
    held: list[socket.socket] = []
    server = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=lambda: [held.append(server.accept()[0]) for _ in iter(int, 1)], daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        home = Home.resolve(Path(tmp) / "home").create()
        keys = []
        for i in range(args.local):
            b = RepoBuilder(Path(tmp) / f"local{i}")
            b.write("a.py", "def a():\n    return 1\n").commit("Add a")
            keys.append(add_repository(home, str(b.path)))
        port = server.getsockname()[1]
        keys += [add_repository(home, f"http://127.0.0.1:{port}/x/hung{i}.git", clone=False) for i in range(args.hung)]

        started = time.monotonic()
        serial_ok = 0
        for key in keys:
            try:
                current_head(home, key, args.timeout)
                serial_ok += 1
            except LtmError:
                pass
        serial = time.monotonic() - started

        started = time.monotonic()
        heads, failed = read_heads(home, keys, args.timeout)
        parallel = time.monotonic() - started
    server.close()
    print(json.dumps({
        "repositories": len(keys), "hung": args.hung, "timeout_s": args.timeout,
        "in_turn_s": round(serial, 2), "in_turn_heads": serial_ok,
        "parallel_s": round(parallel, 2), "parallel_heads": len(heads), "parallel_failed": len(failed),
        "floor_s": args.timeout, "speedup": round(serial / parallel, 1),
    }))


if __name__ == "__main__":
    main()
