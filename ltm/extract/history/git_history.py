"""Commit history from one streaming `git log` process.

Yields one dict per commit in the lake's `Commit` schema plus its parents, newest first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ltm import ids
from ltm.extract.gitrepo import GitRepo

_FIELDS = ("sha", "parents", "an", "ae", "aI", "cn", "ce", "cI", "body")
# A record starts with \x1e and its message ends with \x00, so the patch that follows can't be mistaken for it.
FORMAT = "%x1e" + "%x1f".join(["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%B"]) + "%x00"

_KIND_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bugfix", re.compile(r"\b(fix(e[sd])?|bug|hotfix|patch(ed)?|regression|crash)\b", re.I)),
    ("docs", re.compile(r"^\s*(docs?|documentation|readme)\b", re.I)),
    ("test", re.compile(r"^\s*(tests?|testing)\b", re.I)),
    ("refactor", re.compile(r"\b(refactor(ed|ing)?|clean ?up|restructure|rename)\b", re.I)),
    ("feature", re.compile(r"\b(feat(ure)?|add(s|ed)?|implement(s|ed)?|introduce[sd]?|support)\b", re.I)),
)


_DOC_PATH = re.compile(r"(^|/)(docs?|documentation)/|\.(md|rst|txt|adoc)$|(^|/)(README|CHANGELOG|HISTORY|AUTHORS)[^/]*$", re.I)
_TEST_PATH = re.compile(r"(^|/)(tests?|testing|spec)/|(^|/)(test_[^/]*|[^/]*_test\.[^/]+|[^/]*\.(test|spec)\.[^/]+)$", re.I)


def commit_kind(message: str, paths: list[str] | tuple[str, ...] = ()) -> str:
    """bugfix, docs, test, refactor, feature or chore, from the message, else from the changed paths.

    A message that says nothing decisive is classified by its paths: only documentation files
    make it docs, only test files make it test.
    """
    summary = message.strip().splitlines()[0] if message.strip() else ""
    for kind, pattern in _KIND_RULES:
        if pattern.search(summary):
            return kind
    if paths and all(_DOC_PATH.search(p) for p in paths):
        return "docs"
    if paths and all(_TEST_PATH.search(p) for p in paths):
        return "test"
    return "chore"


@dataclass(frozen=True)
class CommitRecord:
    """One commit: the lake row and the shas of its parents."""

    row: dict
    parents: tuple[str, ...]


_ISO = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:([+-])(\d+):(\d\d)|Z)?$")


def _when(iso: str) -> tuple[datetime, int]:
    """UTC time and the zone offset in minutes; tolerant of the bogus zones old commits carry (+518:00)."""
    m = _ISO.match(iso.strip())
    if m is None:
        return datetime.fromtimestamp(0, timezone.utc), 0
    local = datetime.fromisoformat(m[1]).replace(tzinfo=timezone.utc)
    minutes = (int(m[3]) * 60 + int(m[4])) * (-1 if m[2] == "-" else 1) if m[2] else 0
    return local - timedelta(minutes=minutes), minutes


def parse_commit(repo_key: str, raw: bytes) -> CommitRecord:
    """One `FORMAT` record (without its leading \\x1e) as a CommitRecord."""
    raw = raw.split(b"\x00", 1)[0]
    parts = raw.decode("utf-8", errors="replace").split("\x1f", len(_FIELDS) - 1)
    f = dict(zip(_FIELDS, parts))
    authored, a_off = _when(f["aI"])
    committed, c_off = _when(f["cI"])
    message = f["body"].rstrip("\n")
    cid = ids.commit_id(repo_key, f["sha"])
    row = {
        "id": cid,
        "repo": repo_key,
        "vector_id": ids.vector_id(cid),
        "sha": f["sha"],
        "author_name": f["an"],
        "author_email": f["ae"],
        "authored_at": authored,
        "author_tz_offset": a_off,
        "committer_name": f["cn"],
        "committer_email": f["ce"],
        "committed_at": committed,
        "committer_tz_offset": c_off,
        "message": message,
        "kind": commit_kind(message),
        "text": message,
    }
    return CommitRecord(row, tuple(f["parents"].split()))


def iter_commits(repo: GitRepo, repo_key: str, rev: str = "HEAD") -> Iterator[CommitRecord]:
    """Every commit reachable from `rev`, newest first, from one `git log` process."""
    buf = b""
    for data in repo.stream("log", f"--format={FORMAT}", rev, "--"):
        buf += data
        *records, buf = buf.split(b"\x1e")
        for raw in records:
            if raw.strip():
                yield parse_commit(repo_key, raw)
    if buf.strip():
        yield parse_commit(repo_key, buf)
