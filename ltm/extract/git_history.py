"""Commit history from one streaming `git log` process.

Yields one dict per commit in the lake's `Commit` schema plus its parents, newest first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone

from ltm import ids
from ltm.extract.gitrepo import GitRepo

_FIELDS = ("sha", "parents", "an", "ae", "aI", "cn", "ce", "cI", "body")
_FORMAT = "%x1e" + "%x1f".join(["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%B"])

_KIND_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bugfix", re.compile(r"\b(fix(e[sd])?|bug|hotfix|patch(ed)?|regression|crash)\b", re.I)),
    ("docs", re.compile(r"^\s*(docs?|documentation|readme)\b", re.I)),
    ("test", re.compile(r"^\s*(tests?|testing)\b", re.I)),
    ("refactor", re.compile(r"\b(refactor(ed|ing)?|clean ?up|restructure|rename)\b", re.I)),
    ("feature", re.compile(r"\b(feat(ure)?|add(s|ed)?|implement(s|ed)?|introduce[sd]?|support)\b", re.I)),
)


def commit_kind(message: str) -> str:
    """bugfix, docs, test, refactor, feature or chore, from the commit message's wording."""
    summary = message.strip().splitlines()[0] if message.strip() else ""
    for kind, pattern in _KIND_RULES:
        if pattern.search(summary):
            return kind
    return "chore"


@dataclass(frozen=True)
class CommitRecord:
    """One commit: the lake row and the shas of its parents."""

    row: dict
    parents: tuple[str, ...]


def _when(iso: str) -> tuple[datetime, int]:
    dt = datetime.fromisoformat(iso)
    offset = dt.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    return dt.astimezone(timezone.utc), minutes


def _record(repo_key: str, raw: bytes) -> CommitRecord:
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
    for data in repo.stream("log", f"--format={_FORMAT}", rev, "--"):
        buf += data
        *records, buf = buf.split(b"\x1e")
        for raw in records:
            if raw.strip():
                yield _record(repo_key, raw)
    if buf.strip():
        yield _record(repo_key, buf)
