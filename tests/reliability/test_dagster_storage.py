"""A damaged Dagster run storage (runs.db overwritten) never stops the memory: the next command sets
it aside, says so, and runs with a fresh one; the lake, graph and vectors are untouched."""

from __future__ import annotations

import os

from tests.builder import sample_repo
from tests.reliability.harness import assert_reconciled, ltm, stats


def test_garbage_runs_db_is_set_aside_and_ingest_goes_on(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    before = stats(home)
    (home / "dagster" / "history" / "runs.db").write_bytes(os.urandom(8192))
    repo.write("app/extra.py", "def extra_step():\n    return 3\n").commit("Add extra step")
    res = ltm("ingest", repo.path, "--home", home)
    assert "Traceback" not in res.stderr
    assert "damaged" in res.stderr and "set aside" in res.stderr
    assert [p.name.split(".")[0] for p in (home / "dagster").glob("history.damaged-*")] == ["history"]
    after = stats(home)
    assert after["nodes"]["Commit"] == before["nodes"]["Commit"] + 1
    assert_reconciled(home)
