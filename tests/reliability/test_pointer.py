"""graph/CURRENT names a build of this home, never a file elsewhere.

A pointer rewritten to a path outside `graph/builds/` (absolute, `..`, or a link out of the folder)
is refused by every reader with one error line that names the fix, and the next ingest rebuilds
the graph and points CURRENT back inside the home.
"""

from __future__ import annotations

import shutil

import pytest

from tests.builder import sample_repo
from tests.reliability.harness import assert_reconciled, ltm, one_line_error, stats


@pytest.mark.parametrize("kind", ["absolute", "dotdot", "symlink"])
def test_current_pointing_outside_the_builds_is_refused_then_healed(tmp_path, kind):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    before = stats(home)
    builds = home / "graph" / "builds"
    [current] = [b for b in builds.glob("*.kuzu") if b.name == (home / "graph" / "CURRENT").read_text().strip()]
    outside = tmp_path / "elsewhere" / "evil.kuzu"
    outside.parent.mkdir()
    shutil.copyfile(current, outside)  # a real database: opening it would "work"
    if kind == "absolute":
        name = str(outside)
    elif kind == "dotdot":
        name = "../../../elsewhere/evil.kuzu"
    else:
        (builds / "20990101T000000_000000-deadbeef.kuzu").symlink_to(outside)
        name = "20990101T000000_000000-deadbeef.kuzu"
    (home / "graph" / "CURRENT").write_text(name + "\n")

    for args in (["stats", "--json"], ["query", "parse_header", "--json"], ["reconcile", "--json"]):
        err = one_line_error(ltm(*args, "--home", home, check=False))
        assert "CURRENT" in err and "ltm ingest" in err, err

    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    pointed = (home / "graph" / "CURRENT").read_text().strip()
    assert "/" not in pointed and (builds / pointed).is_file()
    assert not [b for b in builds.iterdir() if b.is_symlink()]
    assert stats(home) == before
    assert_reconciled(home)
