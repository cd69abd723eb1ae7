from datetime import datetime, timezone

import pytest

from ltm.errors import RepositoryError
from ltm.extract.history.git_history import commit_kind, iter_commits
from ltm.extract.gitrepo import GitRepo
from tests.builder import BASE_TIME, RepoBuilder


def test_commits_carry_authors_dates_with_zone_and_parents(repo):
    rows = list(iter_commits(GitRepo(repo.path), "sample"))
    assert [r.row["message"] for r in rows] == ["feat: token validation", "Add util module"]
    newest, oldest = rows
    assert newest.row["author_name"] == "Grace Hopper"
    assert newest.row["author_email"] == "grace@example.com"
    assert newest.row["author_tz_offset"] == 120
    assert newest.row["authored_at"] == datetime.fromtimestamp(BASE_TIME + 2 * 3600, tz=timezone.utc)
    assert newest.parents == (oldest.row["sha"],)
    assert oldest.parents == ()
    assert newest.row["id"] == f"commit:sample:{newest.row['sha']}"
    assert newest.row["kind"] == "feature"


def test_merge_commit_has_two_parents(tmp_path):
    b = RepoBuilder(tmp_path / "m")
    b.write("a.py", "x = 1\n").commit("init")
    b.checkout("-b", "topic")
    b.write("b.py", "y = 2\n").commit("topic work")
    b.checkout("main")
    b.write("c.py", "z = 3\n").commit("main work")
    merge = b.merge("topic", "Merge topic")
    rows = {r.row["sha"]: r for r in iter_commits(GitRepo(b.path), "m")}
    assert len(rows) == 4
    assert len(rows[merge].parents) == 2


def test_message_with_unicode_and_multiple_lines(tmp_path):
    b = RepoBuilder(tmp_path / "u")
    b.write("a.py", "x = 1\n").commit("Fix crash in café parser\n\nLonger body\nwith lines")
    [rec] = list(iter_commits(GitRepo(b.path), "u"))
    assert rec.row["message"] == "Fix crash in café parser\n\nLonger body\nwith lines"
    assert rec.row["kind"] == "bugfix"


@pytest.mark.parametrize(
    "message,kind",
    [("fix: null pointer", "bugfix"), ("docs: explain setup", "docs"), ("Refactor the parser", "refactor"),
     ("Add retry support", "feature"), ("tests for auth", "test"), ("bump version", "chore")],
)
def test_commit_kind(message, kind):
    assert commit_kind(message) == kind


def test_not_a_repository_and_empty_repository_are_clear_errors(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(RepositoryError, match="not a git repository"):
        GitRepo(plain)
    with pytest.raises(RepositoryError, match="does not exist"):
        GitRepo(tmp_path / "missing")
    empty = RepoBuilder(tmp_path / "empty")
    with pytest.raises(RepositoryError, match="no commits"):
        GitRepo(empty.path).head()
