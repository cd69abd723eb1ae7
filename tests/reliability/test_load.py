"""Load: a generated repository of 20,000 files and 50,000 commits ingests with bounded memory.

Heavy (about 10 minutes on 2 cores): marked `slow`, run by `make reliability`; the figures go to
RELIABILITY.md. The same ingest on a repository ten times smaller runs first, so the peaks can be
compared; the peak resident memory of the whole process tree (ltm, git, parse workers) is
sampled every 0.25 s and cut by the run's Dagster steps.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.reliability.harness import ROOT, assert_reconciled, env, stats
from tests.reliability.loadgen import generate, peak_rss, stage_peaks

SIZES = [(2_000, 5_000), (20_000, 50_000)]


@pytest.mark.slow
def test_large_repository_ingests_with_flat_memory(tmp_path):
    figures = []
    for files, commits in SIZES:
        repo = generate(tmp_path / f"repo-{files}", files, commits)
        home = tmp_path / f"home-{files}"
        cmd = [sys.executable, "-m", "cli", "ingest", str(repo), "--home", str(home), "--embedder", "hash"]
        peak, seconds, res, samples = peak_rss(cmd, env=env(), cwd=ROOT)
        assert res.returncode == 0, res.stderr
        s = stats(home)
        assert s["nodes"]["Commit"] == commits and s["nodes"]["File"] == files
        assert s["nodes"]["Function"] == files
        assert s["nodes"]["Bug"] == (commits - files) // 200  # one rewrite in 200 says "Fix"
        assert_reconciled(home)
        figures.append({"files": files, "commits": commits, "peak_rss_mib": peak, "seconds": round(seconds, 1),
                        "stages": stage_peaks(home, samples)})
        print(f"\nLOAD {files} files, {commits} commits: peak {peak} MiB, {seconds:.0f} s, load {os.getloadavg()}")
        for step, f in figures[-1]["stages"].items():
            print(f"  {step:<18} {f['seconds']:>7} s  peak {f['peak_rss_mib']:>5} MiB")
    small, big = figures
    print("\nLOAD " + json.dumps({"figures": figures, "cpus": os.cpu_count(), "load": os.getloadavg()}))
    # Ten times the input may not cost ten times the memory: the pipeline streams and batches.
    assert big["peak_rss_mib"] < 2 * small["peak_rss_mib"], figures
