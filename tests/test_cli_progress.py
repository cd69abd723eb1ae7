"""`ltm ingest` shows its run as it goes: stage lines as stages end, a bar on a terminal, JSON events with --json."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[1]
LTM = [sys.executable, "-m", "cli"]
BAR = re.compile(r"^\s*(\w+)\s*:\s+(\d+)%\|.*\|\s*(\d+)/(\d+) \[(\S+)<(\S+),\s*(\S+) (\w+)/s\]")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    b = RepoBuilder(tmp_path_factory.mktemp("progress") / "shop")
    for i in range(30):
        b.write(f"shop/m{i % 5}.py", "".join(f"def f{j}(x):\n    return x + {i}\n\n" for j in range(i % 4 + 1)))
        b.commit(f"fix #{i}: off by one in f0" if i % 5 == 0 else f"change {i}")
    return b.path


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}


def _ingest(repo: Path, home: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*LTM, "ingest", str(repo), "--embedder", "hash", "--home", str(home), *flags],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=300)


def _in_pty(args: list[str]) -> tuple[list[tuple[str, bool]], int]:
    """Run `args` with a pseudo-terminal as stdin/stdout/stderr; each chunk read, and whether the
    process was still running when it was read."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=_env(), cwd=ROOT)
    os.close(slave)
    chunks: list[tuple[str, bool]] = []
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process closed its end
                break
            if not data:
                break
            chunks.append((data.decode("utf-8", errors="replace"), proc.poll() is None))
    finally:
        os.close(master)
        rc = proc.wait(timeout=60)
    return chunks, rc


def test_terminal_shows_stage_lines_during_the_run_and_a_moving_bar(repo: Path, tmp_path: Path) -> None:
    chunks, rc = _in_pty([*LTM, "ingest", str(repo), "--embedder", "hash", "--home", str(tmp_path / "home")])
    text = "".join(c for c, _ in chunks)
    assert rc == 0, text
    # the commits stage's line was on the terminal while the run still had stages to go
    seen_running = "".join(c for c, running in chunks if running)
    assert re.search(r"^\s+commits\s+mode=full commits=30", seen_running.replace("\r", "\n"), re.M), text
    bars: dict[str, list[tuple[int, int, str, str]]] = {}
    for segment in re.split(r"[\r\n]+", text):
        m = BAR.match(segment)
        if m:
            bars.setdefault(m[1], []).append((int(m[3]), int(m[4]), m[6], m[8]))
    assert "commits" in bars, text
    done = [d for d, _, _, _ in bars["commits"]]
    assert done[0] < done[-1] == 30 and {t for _, t, _, _ in bars["commits"]} == {30}, bars["commits"]
    assert bars["commits"][-1][3] == "commits" and bars["commits"][-1][2] != "?"  # a rate and an ETA once it moved
    assert {"bugs", "embeddings", "graph", "vectors"} <= set(bars), sorted(bars)
    # the bar gives way to the stage line, and the last line is the run's
    assert text.rstrip().splitlines()[-1].startswith("done: shop in ")


def test_not_a_terminal_plain_lines_in_run_order(repo: Path, tmp_path: Path) -> None:
    res = _ingest(repo, tmp_path / "home")
    assert res.returncode == 0, res.stderr
    assert "\r" not in res.stderr and res.stdout == ""
    stages = [m[1] for m in re.finditer(r"^  (\w+)\s+\S+=", res.stderr, re.M)]
    for before, after in (("repository", "commits"), ("commits", "bugs"), ("embeddings", "graph"),
                          ("graph", "vectors"), ("vectors", "reconciliation")):
        assert stages.index(before) < stages.index(after), stages
    assert res.stderr.rstrip().splitlines()[-1].startswith("done: shop in ")


def test_quiet_prints_only_the_final_line(repo: Path, tmp_path: Path) -> None:
    res = _ingest(repo, tmp_path / "home", "--quiet")
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("done: shop in "), res.stderr
    again = _ingest(repo, tmp_path / "home", "-q")
    assert [ln for ln in again.stderr.splitlines() if ln.strip()][-1].startswith("shop: up to date at ")


def test_json_events_parse_errors_included(repo: Path, tmp_path: Path) -> None:
    res = _ingest(repo, tmp_path / "home", "--json")
    assert res.returncode == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and events[-1]["repo"] == "shop"
    stages = {e["stage"]: e for e in events if e["event"] == "stage"}
    assert {"repository", "commits", "bugs", "embeddings", "graph", "vectors"} <= set(stages)
    assert stages["commits"]["metadata"]["commits"] == 30 and stages["commits"]["summary"].startswith("mode=full")
    commits = [e for e in events if e["event"] == "progress" and e["stage"] == "commits"]
    assert commits[-1]["final"] and commits[-1]["done"] == commits[-1]["total"] == 30
    # a stage's progress comes before its stage event
    assert events.index(stages["commits"]) > events.index(commits[-1])

    again = _ingest(repo, tmp_path / "home", "--json")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    assert [json.loads(line) for line in again.stdout.splitlines()] == [{"event": "up_to_date", "repo": "shop", "head": head}]

    missing = _ingest(tmp_path / "nowhere", tmp_path / "home", "--json")
    assert missing.returncode == 1
    [error] = [json.loads(line) for line in missing.stdout.splitlines()]
    assert "nowhere" in error["error"] and error["hint"]
