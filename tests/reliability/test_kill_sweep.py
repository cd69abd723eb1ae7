"""kill -9 at twenty evenly spread moments of one ingest run.

A clean v2 run of the sample repository over a v1 home is timed from the moment the pipeline
starts (the CLI's `ingesting ...` line) to its end; then, for i = 1..20, a copy of the v1 home gets
a plain `ltm ingest` that is SIGKILLed at i/21 of that span, wherever it is (history, bugs,
embedding, memory links, graph, vectors, reconciliation). After each kill, readers answer; the
next ingest ends with a home whose content (lake, graph, vectors, hashed row by row) equals a
fresh v2 home, reconciled, with no staging leftovers. Prints where each kill landed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time

import pytest

from tests.reliability.harness import ROOT, assert_reconciled, env, kill9, leftovers, ltm, snapshot, stats

MOMENTS = 20


def _start(scenario, home):
    """A plain `ltm ingest` whose stderr lines are collected as they come; returns (proc, lines)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "ingest", str(scenario.repo.path), "--home", str(home)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT,
    )
    lines: list[tuple[float, str]] = []

    def read() -> None:
        for line in proc.stderr:
            lines.append((time.monotonic(), line.rstrip("\n")))

    threading.Thread(target=read, daemon=True).start()
    return proc, lines


def _started(lines, proc, timeout: float = 120) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for t, line in lines:
            if line.startswith("ingesting "):
                return t
        if proc.poll() is not None:
            break
        time.sleep(0.005)
    raise AssertionError(f"no 'ingesting' line: {lines}")


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_kill9_at_twenty_moments_of_one_run_always_recovers(scenario, tmp_path):
    scenario.start()
    v1_home = tmp_path / "v1-home"
    shutil.copytree(scenario.home, v1_home, symlinks=True)
    reference = snapshot(scenario.reference(), link_times=False)

    timing = tmp_path / "timing"
    shutil.copytree(v1_home, timing, symlinks=True)
    proc, lines = _start(scenario, timing)
    began = _started(lines, proc)
    assert proc.wait(timeout=600) == 0
    span = time.monotonic() - began

    landed = []
    for i in range(1, MOMENTS + 1):
        home = tmp_path / f"kill-{i}"
        shutil.copytree(v1_home, home, symlinks=True)
        proc, lines = _start(scenario, home)
        at = span * i / (MOMENTS + 1)
        time.sleep(max(0.0, _started(lines, proc) + at - time.monotonic()))
        if proc.poll() is None:
            kill9(proc)
        landed.append(f"{i}/{MOMENTS + 1} ({at:.1f} s of {span:.1f} s{', run had finished' if proc.returncode == 0 else ''})")
        # readers answer right after the kill
        assert stats(home)["vectors"] > 0
        assert json.loads(ltm("query", "token signature", "--json", "--home", home).stdout)
        # and the next run ends equal to a clean home
        scenario.ingest(home)
        assert snapshot(home, link_times=False) == reference, landed[-1]
        assert_reconciled(home)
        assert leftovers(home) == [], landed[-1]
        shutil.rmtree(home)
    print(f"\nrun span {span:.1f} s; kills landed: " + "; ".join(landed))
