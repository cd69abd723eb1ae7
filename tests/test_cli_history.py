"""`ltm ingest`'s history options, end to end through the CLI and a real Dagster run."""

import json

from tests.test_cli import run


def test_max_commits_then_incremental_run_and_modifies_in_the_graph(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash", "--max-commits", "1")
    first = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert first["nodes"]["Commit"] == 1
    # Only the newest commit (app/auth.py: 2 classes, 5 functions incl. the nested `clean`) is mined.
    assert first["rels"]["MODIFIES"] == 1 + 2 + 5
    repo.write("app/util.py", "def retry(times):\n    return times + 1\n")
    repo.commit("fix retry off by one")
    res = run("ingest", repo.path, "--home", home_dir)
    assert "mode=incremental" in res.output and "commits_mined=1" in res.output
    after = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert after["nodes"]["Commit"] == 2
    assert after["rels"]["MODIFIES"] == 8 + 2  # app/util.py and its function retry


def test_unknown_branch_is_one_clear_line(repo, home_dir):
    res = run("ingest", repo.path, "--home", home_dir, "--embedder", "hash", "--branch", "nope", ok=False)
    assert res.exit_code != 0 and "'nope' is not a branch" in res.output
    assert not home_dir.exists()
