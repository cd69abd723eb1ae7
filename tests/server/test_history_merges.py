"""The history tool on a repository that merges its branches: a merge is listed and marked as one."""

from __future__ import annotations

from ltm.home import Home
from server.service import MemoryService
from tests.builder import RepoBuilder
from tests.test_cli import run


def test_a_merge_is_marked_beside_the_branch_commit_that_made_the_change(tmp_path):
    b = RepoBuilder(tmp_path / "proj")
    b.write("pkg/core.py", "def helper(x):\n    return x + 1\n").write("pkg/other.py", "def other():\n    return 0\n")
    added = b.commit("Add helper")
    b.checkout("-b", "topic")
    b.write("pkg/core.py", "def helper(x):\n    return (x or 0) + 1\n")
    made = b.commit("helper: None counts as zero")
    b.checkout("main")
    b.write("pkg/other.py", "def other():\n    return 1\n")
    b.commit("other returns one")
    merged = b.merge("topic", "Merge branch 'topic'")
    home = tmp_path / "home"
    run("ingest", b.path, "--home", home, "--embedder", "hash")
    service = MemoryService(Home(home))
    try:
        rows = service.history("helper", "proj")["commits"]
    finally:
        service.close()
    assert [(r["sha"], r["merge"]) for r in rows] == [(merged, True), (made, False), (added, False)]
    assert (rows[0]["lines_added"], rows[0]["lines_deleted"]) == (1, 1)  # the branch's change, seen again
