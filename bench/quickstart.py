"""Time the README's quick start on a repository, as a user runs it: each command a fresh process.

    .venv/bin/python bench/quickstart.py PATH [--embedder hash|local] [--port 3931]

Clones PATH into a temporary folder (the repository given is never touched), then times
`ltm ingest`, the same ingest again (nothing new), `ltm query`, `ltm memory add` and `ltm ui` until
its web server answers. Prints one JSON object of wall seconds with the repository's size.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _ltm(*args: object) -> float:
    """Wall seconds of one `ltm` command in a fresh process (imports included)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli", *map(str, args)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return round(time.perf_counter() - started, 2)


def _ui_ready(home: Path, port: int, timeout_s: float = 300) -> float:
    """Seconds from `ltm ui` until http://127.0.0.1:PORT/server_info answers; the UI is stopped after."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "cli", "ui", "--port", str(port), "--home", str(home)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while time.perf_counter() - started < timeout_s:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2)
                return round(time.perf_counter() - started, 2)
            except OSError:
                if proc.poll() is not None:
                    raise SystemExit(f"ltm ui exited with {proc.returncode} before it answered")
                time.sleep(0.25)
        raise SystemExit(f"ltm ui did not answer within {timeout_s} s")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _git_count(repo: Path, *args: str) -> int:
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout
    return len(out.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", type=Path)
    ap.add_argument("--embedder", default="local", choices=["local", "hash", "static"])
    ap.add_argument("--port", type=int, default=3931)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, home = Path(tmp) / a.path.resolve().name, Path(tmp) / "home"
        subprocess.run(["git", "clone", "-q", str(a.path), str(repo)], check=True)
        out: dict = {"repo": str(a.path), "commits": _git_count(repo, "rev-list", "HEAD"),
                     "files": _git_count(repo, "ls-files"), "embedder": a.embedder}
        out["ingest_s"] = _ltm("ingest", repo, "--home", home, "--embedder", a.embedder)
        out["ingest_nothing_new_s"] = _ltm("ingest", repo, "--home", home)
        out["query_s"] = _ltm("query", "where are exit codes chosen", "--home", home)
        out["memory_add_s"] = _ltm("memory", "add", "exit codes follow the error kind", "--home", home)
        out["ui_ready_s"] = _ui_ready(home, a.port)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
