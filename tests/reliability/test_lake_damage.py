"""Damaged files in the home that the next ingest can rebuild, it rebuilds and says so; what it
cannot, it names with the command that fixes it.

- a truncated or overwritten lake Parquet file of a repository: readers of the lake name the file;
  the next ingest removes the damaged tables (all of the history's when one of them is damaged),
  mines them again and ends equal to a clean home;
- a corrupt `settings.json`: every command says so in one line, naming the file and the fix.
"""

from __future__ import annotations

import pytest

from tests.builder import sample_repo
from tests.reliability.harness import assert_reconciled, ltm, one_line_error, snapshot


@pytest.mark.parametrize("table", ["Commit", "MODIFIES", "Function", "embeddings"])
def test_a_damaged_lake_file_is_rebuilt_by_the_next_ingest(tmp_path, table):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    clean = snapshot(home)
    [part] = sorted((home / "lake" / table / "repo=sample").glob("part-*.parquet"))[:1]
    part.write_bytes(part.read_bytes()[: len(part.read_bytes()) // 2])  # truncated mid-file

    res = ltm("ingest", repo.path, "--home", home)
    assert "Traceback" not in res.stderr
    assert f"healed=" in res.stderr and table in res.stderr, res.stderr
    assert snapshot(home) == clean
    assert_reconciled(home)


def test_a_corrupt_settings_file_is_one_line_naming_it(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    (home / "settings.json").write_text('{"embedder": "hash",')
    for args in (["query", "validate the token"], ["ingest", repo.path], ["memory", "add", "a note"]):
        err = one_line_error(ltm(*args, "--home", home, check=False))
        assert "settings.json" in err and "not valid JSON" in err and "delete it" in err, err
