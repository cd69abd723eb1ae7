"""Commits with their per-file changes and `-U0` hunks, from one streaming `git log` process.

One `git log --raw -p -U0 -M -C --diff-merges=first-parent` covers the whole range: `--raw` gives
each change's kind, modes, blob ids and paths; the patch gives its hunks (line ranges) and the
binary flag. Merges are diffed against their first parent. Hunk bodies are never kept: with
`-U0` the hunk header already says which old lines went and which new lines came.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from ltm.extract.git_history import FORMAT, CommitRecord, parse_commit
from ltm.extract.gitrepo import GitRepo, decode_path

NULL_BLOB = "0" * 40


class ChangeKind(str, Enum):
    """What happened to a file in a commit (git's --raw status letters)."""

    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    TYPE_CHANGED = "type_changed"
    UNMERGED = "unmerged"
    UNKNOWN = "unknown"


_STATUS = {
    "A": ChangeKind.ADDED, "M": ChangeKind.MODIFIED, "D": ChangeKind.DELETED, "R": ChangeKind.RENAMED,
    "C": ChangeKind.COPIED, "T": ChangeKind.TYPE_CHANGED, "U": ChangeKind.UNMERGED, "X": ChangeKind.UNKNOWN,
}
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


@dataclass
class FileChange:
    """One file in one commit: kind, paths (None where absent), blobs, line counts and hunks.

    `deleted` and `added` are line ranges `(start, count)` in the old and the new blob.
    """

    kind: ChangeKind
    old_path: str | None
    new_path: str | None
    old_blob: str
    new_blob: str
    old_mode: str
    new_mode: str
    similarity: int | None = None
    binary: bool = False
    lines_added: int = 0
    lines_deleted: int = 0
    deleted: list[tuple[int, int]] = field(default_factory=list)
    added: list[tuple[int, int]] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The path the change is known by: the new path, or the old one for a deletion."""
        return self.new_path if self.new_path is not None else self.old_path  # type: ignore[return-value]


@dataclass
class CommitChanges:
    """A commit (its lake row and parents) and the files it changed against its first parent."""

    commit: CommitRecord
    files: list[FileChange] = field(default_factory=list)


def unquote_path(raw: bytes) -> str:
    """A path as git prints it (C-quoted when it has control characters or quotes) to text."""
    if not (raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2):
        return decode_path(raw)
    body, out, i = raw[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i : i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt.isdigit():  # octal escape of one byte, e.g. \303
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out.append(_ESCAPES.get(nxt, ord(nxt or b"\\")))
            i += 2
    return decode_path(bytes(out))


def _raw_change(line: bytes) -> FileChange:
    meta, *paths = line.rstrip(b"\n").split(b"\t")
    old_mode, new_mode, old_blob, new_blob, status = meta[1:].split(b" ")
    st = status.decode()
    kind = _STATUS.get(st[0], ChangeKind.UNKNOWN)
    names = [unquote_path(p) for p in paths]
    old_path = names[0] if kind is not ChangeKind.ADDED else None
    new_path = names[-1] if kind is not ChangeKind.DELETED else None
    return FileChange(
        kind, old_path, new_path, old_blob.decode(), new_blob.decode(), old_mode.decode(), new_mode.decode(),
        similarity=int(st[1:]) if len(st) > 1 and st[1:].isdigit() else None,
    )


def log_args(rev: str, since: str | None = None, max_commits: int | None = None, exclude: str | None = None) -> list[str]:
    """The `git log` arguments for the range `exclude..rev` (oldest commits are streamed last)."""
    args = [
        "log", f"--format={FORMAT}", "--raw", "-p", "-U0", "-M", "-C", "--diff-merges=first-parent",
        "--no-abbrev", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative", "--full-index",
    ]
    if since:
        args.append(f"--since={since}")
    if max_commits is not None:
        args.append(f"--max-count={max_commits}")
    args.append(rev)
    if exclude:
        args.append(f"^{exclude}")
    return [*args, "--"]


def iter_changes(
    repo: GitRepo, repo_key: str, rev: str, since: str | None = None, max_commits: int | None = None,
    exclude: str | None = None,
) -> Iterator[CommitChanges]:
    """Every commit of `rev` (newest first, bounded by `since`, `max_commits`, `exclude`) with its changes.

    One `git log` process streams the whole range; no git process per commit.
    """
    current: CommitChanges | None = None
    header: list[bytes] = []
    patch_index = -1  # which raw change the current `diff --git` section belongs to
    remaining = 0  # hunk body lines still to skip
    lines = repo.stream_lines(*log_args(rev, since, max_commits, exclude))
    for line in lines:
        if remaining:
            if not line.startswith(b"\\"):  # "\ No newline at end of file" is not a hunk line
                remaining -= 1
            continue
        if line.startswith(b"\x1e"):
            if current is not None:
                yield current
            header = [line[1:]]
            while b"\x00" not in header[-1]:
                header.append(next(lines))
            raw = b"".join(header)
            current = CommitChanges(parse_commit(repo_key, raw[: raw.index(b"\x00")]))
            patch_index = -1
            continue
        if current is None:
            continue
        if line.startswith(b":"):
            current.files.append(_raw_change(line))
        elif line.startswith(b"diff --git ") or line.startswith(b"diff --cc "):
            patch_index += 1
        elif line.startswith(b"@@ ") and 0 <= patch_index < len(current.files):
            m = _HUNK.match(line)
            if m is None:
                continue
            o_start, o_len = int(m[1]), int(m[2]) if m[2] is not None else 1
            n_start, n_len = int(m[3]), int(m[4]) if m[4] is not None else 1
            fc = current.files[patch_index]
            if o_len:
                fc.deleted.append((o_start, o_len))
                fc.lines_deleted += o_len
            if n_len:
                fc.added.append((n_start, n_len))
                fc.lines_added += n_len
            remaining = o_len + n_len
        elif line.startswith(b"Binary files ") and 0 <= patch_index < len(current.files):
            current.files[patch_index].binary = True
    if current is not None:
        yield current
