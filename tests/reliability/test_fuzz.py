"""Property-based fuzzing (hypothesis) of the parsers that read user-controlled text.

- the commit parser: messages and names with separators, control characters and patch-like lines
  round-trip through a real `git log` stream;
- the memory JSON Lines reader and the issue export reader: any line either loads or is reported
  with its line number; nothing raises, nothing is silently dropped.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ltm.bugs.issues import load_issue_export
from ltm.extract.history.changes import iter_changes
from ltm.extract.history.git_history import parse_commit
from ltm.extract.gitrepo import GitRepo
from ltm.memory.records import ImportReport
from ltm.memory.sources import read_jsonl

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# git keeps every byte of a message except NUL; \r is kept with --cleanup=verbatim
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=200)
_NASTY_LINES = st.sampled_from([
    "\x1e", "\x1f", "\x1e\x1f\x1e", ":100644 100644 " + "a" * 40 + " " + "b" * 40 + " M\tx.py",
    "diff --git a/x b/x", "@@ -1,3 +1,4 @@", "\\ No newline at end of file", "Binary files a and b differ",
    "commit 0123456789abcdef", "'}) MATCH (n) DETACH DELETE n //",
])
_MESSAGE = st.lists(st.one_of(_TEXT, _NASTY_LINES), min_size=1, max_size=6).map("\n".join).filter(lambda m: m.strip())
# ident names: git drops <, > and newlines, and trims some punctuation at the ends
_NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>"), min_size=1, max_size=40).filter(
    lambda s: s.strip(" .,:;'\"\\") == s and s.strip()
)


def _git(path: Path, *args: str, input: bytes | None = None, env: dict | None = None) -> str:
    base = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", *args], cwd=path, input=input, capture_output=True, check=True,
                          env={**base, **(env or {})}).stdout.decode()


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commits=st.lists(st.tuples(_MESSAGE, _NAME), min_size=1, max_size=4))
def test_commit_messages_and_names_round_trip_through_git_log(tmp_path_factory, commits):
    path = tmp_path_factory.mktemp("fuzz")
    _git(path, "init", "-q", "-b", "main")
    for n, (message, name) in enumerate(commits):
        (path / "f.txt").write_text(f"{n}\n")
        stamp = f"{1_700_000_000 + n} +0130"
        env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_AUTHOR_DATE": stamp,
               "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_COMMITTER_DATE": stamp}
        _git(path, "add", "-A")
        _git(path, "commit", "-q", "--cleanup=verbatim", "-F", "-", input=message.encode(), env=env)
    mined = list(iter_changes(GitRepo(path), "fuzz", "HEAD"))
    assert len(mined) == len(commits)
    for cc, (message, name) in zip(mined, reversed(commits)):
        row = cc.commit.row
        assert row["message"] == message.rstrip("\n")
        assert row["author_name"] == name and row["author_tz_offset"] == 90
        assert [f.path for f in cc.files] == ["f.txt"]


@FUZZ
@given(raw=st.binary(max_size=400))
def test_commit_parser_never_fails_on_a_record_git_could_print(raw):
    fields = [b"a" * 40, b"", b"n", b"e", b"2024-01-01T00:00:00+00:00", b"n", b"e", b"2024-01-01T00:00:00+00:00"]
    record = b"\x1f".join([*fields, raw.replace(b"\x00", b"")]) + b"\x00"
    row = parse_commit("fuzz", record).row
    assert row["message"] == raw.replace(b"\x00", b"").decode("utf-8", errors="replace").rstrip("\n")
    assert row["kind"] in {"bugfix", "docs", "test", "refactor", "feature", "chore"}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
_MEMORY = st.fixed_dictionaries(
    {}, optional={"id": _JSON, "content": _JSON, "project_id": _JSON, "memory_type": _JSON, "metadata": _JSON,
                  "graph_links": _JSON, "unknown_field": _JSON},
)
_LINE = st.one_of(
    _MEMORY.map(json.dumps), _JSON.map(json.dumps),
    _MEMORY.map(json.dumps).map(lambda s: s[: len(s) // 2]),  # truncated
    st.text(max_size=60).filter(lambda s: "\n" not in s and "\r" not in s),
)


def _nonblank(lines: list[str]) -> set[int]:
    return {n for n, line in enumerate(lines, start=1) if line.strip()}


@FUZZ
@given(lines=st.lists(_LINE, max_size=12))
def test_memory_jsonl_every_line_loads_or_is_reported(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("mem") / "notes.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = ImportReport(str(path))
    rows = list(read_jsonl(path, report))
    skipped = {n for n, _ in report.skipped}
    assert len(rows) + len(skipped) == len(_nonblank(lines))
    assert skipped <= _nonblank(lines)
    assert all(isinstance(r["content"], str) or r["content"] is None for r in rows)


_ISSUE = st.fixed_dictionaries(
    {}, optional={"number": _JSON | st.integers(min_value=1, max_value=10**6), "title": _JSON, "body": _JSON,
                  "labels": _JSON, "state": _JSON, "created_at": _JSON | st.just("2024-02-03T04:05:06Z"),
                  "closed_at": _JSON, "pull_request": _JSON, "extra": _JSON},
)


@FUZZ
@given(lines=st.lists(st.one_of(_ISSUE.map(json.dumps), _LINE), max_size=12))
def test_issue_export_every_line_loads_or_is_reported(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("issues") / "issues.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    export = load_issue_export(path)
    bad = {n for n, _ in export.bad_lines}
    assert bad <= _nonblank(lines)
    good = _nonblank(lines) - bad
    # every good line is an issue (a later line with the same number replaces an earlier one)
    numbers = {json.loads(lines[n - 1])["number"] for n in good}
    assert {int(ref.lstrip("#")) for ref in export.issues} == numbers
