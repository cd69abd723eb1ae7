"""Two ingests on one home, and readers in other processes while a build runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.reliability.harness import ROOT, assert_reconciled, env, one_line_error, stats, wait_for


def test_second_ingest_is_refused_while_one_runs_and_readers_keep_answering(scenario):
    first = scenario.start().stalled("graph")
    try:
        # a second writer on the same home is refused at once, with the reason and what to do
        line = one_line_error(scenario.ingest(check=False))
        assert "another process holds the ingest lock" in line and "wait for it to finish" in line
        # readers in other processes answer from the previous build while the new one is half copied
        readers = [subprocess.Popen([sys.executable, "-m", "cli", *args, "--home", str(scenario.home)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
                   for args in (["stats", "--json"], ["stats", "--json"], ["query", "token", "--json"], ["reconcile", "--json"])]
        outs = [r.communicate(timeout=300) for r in readers]
        assert all(r.returncode == 0 for r in readers), outs
        assert json.loads(outs[0][0]) == scenario.v1_stats == json.loads(outs[1][0])
        assert json.loads(outs[2][0]) and json.loads(outs[3][0])["ok"] is True
    finally:
        done = scenario.release(first)  # let the first ingest finish normally
    assert done.returncode == 0, done.stderr
    assert stats(scenario.home)["nodes"]["Function"] == scenario.v1_stats["nodes"]["Function"] + 40
    assert_reconciled(scenario.home)


@pytest.mark.slow
def test_readers_in_three_processes_during_a_real_ingest_never_fail(scenario, tmp_path):
    v1_functions = scenario.start().v1_stats["nodes"]["Function"]
    stop = tmp_path / "stop"
    logs = [tmp_path / f"reader-{i}.jsonl" for i in range(3)]
    readers = [subprocess.Popen([sys.executable, str(ROOT / "tests/reliability/reader.py"), str(scenario.home), str(log), str(stop)],
                                env=env(), cwd=ROOT) for log in logs]
    wait_for(lambda: all(log.exists() and log.read_text().strip() for log in logs), 120, "readers to start")
    scenario.ingest()
    stop.touch()
    for r in readers:
        assert r.wait(timeout=120) == 0
    rounds = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    assert not [r for r in rounds if "error" in r], [r for r in rounds if "error" in r][:3]
    assert {r["functions"] for r in rounds} <= {v1_functions, v1_functions + 40}
    assert all(r["hits"] == 3 for r in rounds)
    assert v1_functions + 40 in {r["functions"] for r in rounds}  # the last rounds see the new build
    assert_reconciled(scenario.home)
