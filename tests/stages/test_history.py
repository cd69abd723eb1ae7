"""The commits stage end to end: lake tables, cursor, incremental runs, rewritten history, graph."""

import logging
import subprocess

import pytest

from ltm.errors import RepositoryError
from ltm.extract.code.entities import extract_code
from ltm.extract.gitrepo import GitRepo
from ltm.graph.build import build_graph
from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.stages.history import HistoryOptions, stage_history
from ltm.lake import Lake
from tests.builder import RepoBuilder
from tests.extract.history.test_history import history_repo


def _lake(tmp_path, name="lake") -> Lake:
    return Lake(tmp_path / name)


def _rows(lake: Lake, table: str, key: str) -> list[dict]:
    return lake.read(table, key).to_pylist()


def _edges(lake: Lake, key: str) -> set[tuple]:
    return {(m["src"], m["dst"], m["lines_added"], m["lines_deleted"], m["change_kind"]) for m in _rows(lake, "MODIFIES", key)}


def test_past_entities_get_nodes_and_every_modifies_edge_lands_in_the_graph(tmp_path):
    b, s = history_repo(tmp_path)
    lake = _lake(tmp_path)
    stats = stage_history(b.path, "h", lake, tmp_path / "cache")
    assert (stats.mode, stats.commits_mined) == ("full", 6)
    past = {r["id"]: r["removed_in"] for r in _rows(lake, "past_functions", "h")}
    assert past == {
        "fn:h:app/core.py:alpha": s["c3"], "fn:h:app/core.py:beta": s["c4"], "fn:h:app/core.py:gamma": s["c4"],
        "fn:h:app/core.py:Box.open": s["c4"], "fn:h:app/engine.py:beta": s["c5"],
    }
    assert {r["id"] for r in _rows(lake, "past_classes", "h")} == {"cls:h:app/core.py:Box"}
    assert {r["id"]: r["removed_in"] for r in _rows(lake, "past_files", "h")} == {
        "file:h:app/core.py": s["c4"], "file:h:notes.txt": s["c6"],
    }
    # The HEAD entities come from the code stage; together they leave no MODIFIES edge dangling.
    with lake.write("h") as w:
        for table, rows in extract_code(GitRepo(b.path), "h").tables.items():
            w.write(table, rows)
    graph = build_graph(tmp_path / "graph", lake)
    assert graph.dangling_edges == {}
    with open_current(tmp_path / "graph") as conn:
        rows = query(conn, "MATCH (c:Commit)-[m:MODIFIES]->(f:Function) WHERE f.name = $n "
                           "RETURN c.message, m.change_kind, f.removed_in ORDER BY c.committed_at", {"n": "alpha"})
        assert rows == [["Add core", "added", s["c3"]], ["Remove alpha, add gamma", "deleted", s["c3"]]]
        [[old]] = query(conn, "MATCH (n:Function)-[:RENAMED_FROM]->(o:Function) WHERE n.name = $n RETURN o.name",
                        {"n": "delta"})
        assert old == "beta"
        [[alive]] = query(conn, "MATCH (f:Function) WHERE f.name = $n AND f.removed_in IS NULL RETURN f.file_path",
                          {"n": "gamma"})
        assert alive == "app/engine.py"


def test_what_a_merge_dropped_is_never_counted_present(tmp_path):
    """A function added on a branch whose merge left it out, and one a newer branch commit touched after the
    main line removed it: both are gone at the tip, so each names the commit it left in."""
    b = RepoBuilder(tmp_path / "repo")
    b.write("app/core.py", "def keep():\n    return 1\n\n\ndef old():\n    return 2\n")
    first = b.commit("Add core")
    b.write("app/core.py", "def keep():\n    return 1\n")
    removed = b.commit("Remove old")
    b.checkout("-b", "side", first)  # a branch from before the removal, its commit newer than it
    b.write("app/extra.py", "def ghost():\n    return 3\n")
    b.write("app/core.py", "def keep():\n    return 1\n\n\ndef old():\n    return 20\n")
    b.commit("Add extra, change old")
    b.checkout("main")
    who = {"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
    b.git("merge", "-q", "--no-ff", "--no-commit", "-s", "ours", "side", env=who)  # the merge keeps main's tree
    merge = b.commit("Merge side, keeping main's code")
    lake = _lake(tmp_path)
    stage_history(b.path, "h", lake, tmp_path / "cache")
    past = {r["id"]: r["removed_in"] for r in _rows(lake, "past_functions", "h")}
    assert past == {"fn:h:app/core.py:old": removed, "fn:h:app/extra.py:ghost": merge}
    assert {r["id"]: r["removed_in"] for r in _rows(lake, "past_files", "h")} == {"file:h:app/extra.py": merge}


def test_a_change_to_an_overloaded_function_body_modifies_the_function(tmp_path):
    """The commit that changed the implementation below typing stubs changed `chunks`, the id the code stage
    gives the implementation."""
    from tests.extract.code.test_code_entities import OVERLOADED

    b = RepoBuilder(tmp_path / "repo")
    b.write("m.py", OVERLOADED)
    b.commit("Add chunks")
    b.write("m.py", OVERLOADED.replace("data[1:]]", "data[1:] or b'']"))
    fix = b.commit("chunks: never an empty list")
    lake = _lake(tmp_path)
    stage_history(b.path, "h", lake, tmp_path / "cache")
    edges = {(m["dst"], m["lines_added"], m["lines_deleted"]) for m in _rows(lake, "MODIFIES", "h")
             if m["src"] == f"commit:h:{fix}" and m["dst_label"] == "Function"}
    assert edges == {("fn:h:m.py:chunks", 1, 1)}
    code_ids = {r["id"] for r in extract_code(GitRepo(b.path), "h").tables["Function"]}
    assert "fn:h:m.py:chunks" in code_ids


def test_second_run_mines_nothing_and_new_commits_add_exactly_their_rows(tmp_path):
    b, _ = history_repo(tmp_path)
    lake = _lake(tmp_path)
    stage_history(b.path, "h", lake, tmp_path / "cache")
    before = _edges(lake, "h")
    again = stage_history(b.path, "h", lake, tmp_path / "cache")
    assert (again.mode, again.commits_mined, again.commits_total) == ("up_to_date", 0, 6)
    assert _edges(lake, "h") == before
    b.write("app/engine.py", (b.path / "app/engine.py").read_text() + "\n\ndef eps():\n    return 5\n")
    new = [b.commit("Add eps")]
    b.write("README.md", "# r\n")
    new.append(b.commit("Readme"))
    b.write("app/engine.py", (b.path / "app/engine.py").read_text().replace("return 5", "return 6"))
    new.append(b.commit("fix eps"))
    inc = stage_history(b.path, "h", lake, tmp_path / "cache")
    assert (inc.mode, inc.commits_mined, inc.commits_total) == ("incremental", 3, 9)
    added = _edges(lake, "h") - before
    assert {e[0] for e in added} == {f"commit:h:{sha}" for sha in new}
    assert len(_rows(lake, "Commit", "h")) == 9
    # The incremental lake holds exactly what a full mine of the same history holds.
    full = _lake(tmp_path, "full")
    stage_history(b.path, "h", full, None)
    for table in ("Commit", "PARENT_OF", "MODIFIES", "RENAMED_FROM", "file_changes", "past_functions"):
        key = "sha" if table == "Commit" else None
        got, want = _rows(lake, table, "h"), _rows(full, table, "h")
        strip = (lambda r: r[key]) if key else (lambda r: tuple(sorted((k, str(v)) for k, v in r.items())))
        assert sorted(map(strip, got)) == sorted(map(strip, want)), table


def test_rewritten_history_is_mined_again_in_full_with_a_log_line(tmp_path, caplog):
    b, s = history_repo(tmp_path)
    lake = _lake(tmp_path)
    stage_history(b.path, "h", lake, None)
    b.git("reset", "-q", "--hard", s["c5"])
    b.write("other.py", "def z():\n    pass\n")
    replaced = b.commit("Replacement for c6")
    with caplog.at_level(logging.WARNING, logger="ltm.history"):
        st = stage_history(b.path, "h", lake, None)
    assert st.mode == "rewritten" and st.commits_total == 6
    assert "rewritten" in caplog.text and s["c6"][:12] in caplog.text
    shas = {r["sha"] for r in _rows(lake, "Commit", "h")}
    assert replaced in shas and s["c6"] not in shas
    assert not [m for m in _rows(lake, "MODIFIES", "h") if m["src"] == f"commit:h:{s['c6']}"]


def test_shallow_clone_mines_what_it_has(tmp_path):
    b, s = history_repo(tmp_path)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{b.path}", str(clone)], check=True)
    lake = _lake(tmp_path)
    st = stage_history(clone, "sh", lake, None)
    assert st.commits_total == 2 and st.mined.shallow is True
    assert len(_rows(lake, "PARENT_OF", "sh")) == 1
    # The boundary commit (c5) has no parent in the clone: its whole tree counts as added.
    kinds = {(r["path"], r["change_kind"]) for r in _rows(lake, "file_changes", "sh") if r["sha"] == s["c5"]}
    assert kinds == {("app/engine.py", "added"), ("logo.png", "added"), ("notes.txt", "added")}


def test_empty_repository_and_unknown_branch_are_clear_errors(tmp_path):
    empty = RepoBuilder(tmp_path / "empty")
    with pytest.raises(RepositoryError, match="no commits"):
        stage_history(empty.path, "e", _lake(tmp_path), None)
    b, _ = history_repo(tmp_path)
    with pytest.raises(RepositoryError, match="'nope' is not a branch"):
        stage_history(b.path, "h", _lake(tmp_path), None, HistoryOptions(branch="nope"))
    assert _rows(_lake(tmp_path), "Commit", "h") == []


def test_configured_branch_and_max_commits(tmp_path):
    b, s = history_repo(tmp_path)
    b.checkout("-b", "side", s["c2"])
    b.write("side.py", "def s():\n    pass\n")
    side = b.commit("side work")
    b.checkout("main")
    lake = _lake(tmp_path)
    st = stage_history(b.path, "h", lake, None, HistoryOptions(branch="side", max_commits=2))
    assert st.commits_total == 2 and st.mined.complete is False
    assert {r["sha"] for r in _rows(lake, "Commit", "h")} == {side, s["c2"]}
    [cursor] = _rows(lake, "history_cursor", "h")
    assert (cursor["branch"], cursor["tip_sha"], cursor["max_commits"]) == ("side", side, 2)
