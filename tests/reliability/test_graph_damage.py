"""A graph build overwritten with random bytes: every reader says so in one line (Kuzu itself would
crash the process), and the next ingest builds a new graph and points readers at it."""

from __future__ import annotations

import os

from tests.builder import sample_repo
from tests.reliability.harness import assert_reconciled, ltm, one_line_error, stats


def test_random_bytes_in_the_current_build_are_one_error_then_healed(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    before = stats(home)
    build = home / "graph" / "builds" / (home / "graph" / "CURRENT").read_text().strip()
    build.write_bytes(os.urandom(build.stat().st_size))

    for args in (["stats", "--json"], ["query", "validate the token", "--json"], ["reconcile", "--json"],
                 ["calls", "parse_header"]):
        res = ltm(*args, "--home", home, check=False)
        assert res.returncode == 5, (args, res.returncode, res.stderr)  # environment; not a signal (-11)
        err = one_line_error(res)
        assert "not a kuzu database" in err.lower() and "ltm ingest" in err, err

    ltm("ingest", repo.path, "--home", home)
    assert stats(home) == before
    assert_reconciled(home)
