"""Two ingests on one home, and readers in other processes while a build runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.reliability.harness import ROOT, assert_reconciled, env, ltm, one_line_error, start_stalled, stats, wait_for


def _ingest(path, home, check=True):
    return ltm("ingest", path, "--home", home, "--embedder", "hash", check=check)


def test_second_ingest_is_refused_while_one_runs_and_readers_keep_answering(two_versions, tmp_path):
    b, grow = two_versions
    home = tmp_path / "home"
    _ingest(b.path, home)
    v1 = stats(home)
    grow()
    marker = tmp_path / "stalled"
    first = start_stalled("graph", "ingest", b.path, "--home", home, "--embedder", "hash", marker=marker)
    try:
        # a second writer on the same home is refused at once, with the reason and what to do
        line = one_line_error(_ingest(b.path, home, check=False))
        assert "another process holds the ingest lock" in line and "wait for it to finish" in line
        # readers in other processes answer from the previous build while the new one is half copied
        readers = [subprocess.Popen([sys.executable, "-m", "ltm.cli", *args, "--home", str(home)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
                   for args in (["stats", "--json"], ["stats", "--json"], ["query", "token", "--json"], ["reconcile", "--json"])]
        outs = [r.communicate(timeout=300) for r in readers]
        assert all(r.returncode == 0 for r in readers), outs
        assert json.loads(outs[0][0]) == v1 == json.loads(outs[1][0])
        assert json.loads(outs[2][0]) and json.loads(outs[3][0])["ok"] is True
    finally:
        marker.with_name(marker.name + ".go").touch()  # let the first ingest finish normally
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert stats(home)["nodes"]["Function"] == v1["nodes"]["Function"] + 40
    assert_reconciled(home)


@pytest.mark.slow
def test_readers_in_three_processes_during_a_real_ingest_never_fail(two_versions, tmp_path):
    b, grow = two_versions
    home = tmp_path / "home"
    _ingest(b.path, home)
    v1_functions = stats(home)["nodes"]["Function"]
    grow()
    stop = tmp_path / "stop"
    logs = [tmp_path / f"reader-{i}.jsonl" for i in range(3)]
    readers = [subprocess.Popen([sys.executable, str(ROOT / "tests/reliability/reader.py"), str(home), str(log), str(stop)],
                                env=env(), cwd=ROOT) for log in logs]
    wait_for(lambda: all(log.exists() and log.read_text().strip() for log in logs), 120, "readers to start")
    _ingest(b.path, home)
    stop.touch()
    for r in readers:
        assert r.wait(timeout=120) == 0
    rounds = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    assert not [r for r in rounds if "error" in r], [r for r in rounds if "error" in r][:3]
    assert {r["functions"] for r in rounds} <= {v1_functions, v1_functions + 40}
    assert all(r["hits"] == 3 for r in rounds)
    assert v1_functions + 40 in {r["functions"] for r in rounds}  # the last rounds see the new build
    assert_reconciled(home)
