"""Commits with their per-file changes and `-U0` hunks, from one streaming `git log` process.

One `git log --raw -p -U0 -M -C --diff-merges=first-parent` covers the whole range: `--raw` gives
each change's kind, modes, blob ids and paths; the patch gives its hunks (line ranges) and the
binary flag. Merges are diffed against their first parent. Hunk bodies are never kept: with
`-U0` the hunk header already says which old lines went and which new lines came.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from enum import Enum

from ltm.extract.history.git_history import FORMAT, CommitRecord, parse_commit
from ltm.errors import RepositoryError
from ltm.extract.gitrepo import GitRepo, cannot_read_object, decode_path, past_unreadable

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
_INTEREST = re.compile(
    rb"^(?:(\x1e)|(:)|(diff --(?:git|cc) )|@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@|Binary files )", re.M
)
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
    hunks: list[tuple[int, int, int, int]] = field(default_factory=list)  # (old start, count, new start, count)

    @property
    def path(self) -> str:
        """The path the change is known by: the new path, or the old one for a deletion."""
        return self.new_path if self.new_path is not None else self.old_path  # type: ignore[return-value]


@dataclass
class CommitChanges:
    """A commit (its lake row and parents) and the files it changed against its first parent."""

    commit: CommitRecord
    files: list[FileChange] = field(default_factory=list)
    unreadable: bool = False  # git could not read a version it changed: files without line ranges


def unquote_bytes(raw: bytes) -> bytes:
    """A path as git prints it (C-quoted, `"a\\tb"`, octal escapes, when it has control characters,
    quotes or, with core.quotePath, other bytes) to its bytes."""
    if not (raw.startswith(b'"') and raw.endswith(b'"') and len(raw) >= 2):
        return raw
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
    return bytes(out)


def unquote_path(raw: bytes) -> str:
    """A path as git prints it, as the lake's text (`decode_path`)."""
    return decode_path(unquote_bytes(raw))


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


_DIFF = ["--raw", "-p", "-U0", "-M", "-C", "--diff-merges=first-parent", "--no-abbrev", "--no-color",
         "--no-ext-diff", "--no-textconv", "--no-relative", "--full-index"]


def _range(rev: str, since: str | None, max_commits: int | None, exclude: str | None) -> list[str]:
    args = [f"--since={since}"] if since else []
    if max_commits is not None:
        args.append(f"--max-count={max_commits}")
    return [*args, rev, *([f"^{exclude}"] if exclude else [])]


def count_commits(repo: GitRepo, rev: str, since: str | None = None, max_commits: int | None = None,
                  exclude: str | None = None) -> int | None:
    """How many commits `iter_changes` will yield for the range (one `git rev-list --count`), for progress."""
    try:
        return int(repo.run("rev-list", "--count", *_range(rev, since, max_commits, exclude), "--").strip())
    except (RepositoryError, ValueError):
        return None


def log_args(rev: str, since: str | None = None, max_commits: int | None = None, exclude: str | None = None) -> list[str]:
    """The `git log` arguments for the range `exclude..rev` (oldest commits are streamed last)."""
    return ["log", f"--format={FORMAT}", *_DIFF, *_range(rev, since, max_commits, exclude), "--"]


def iter_changes(
    repo: GitRepo, repo_key: str, rev: str, since: str | None = None, max_commits: int | None = None,
    exclude: str | None = None,
) -> Iterator[CommitChanges]:
    """Every commit of `rev` (newest first, bounded by `since`, `max_commits`, `exclude`) with its changes.

    One `git log` process streams the whole range; no git process per commit. When git cannot read
    a version a diff needs (a missing or corrupt object, a partial clone), the rest of the range is
    streamed from the commit after the last one finished (`--stdin --no-walk`), and the commit git
    failed on comes with its files but no line ranges (`unreadable`): one bad object never stops
    the history.
    """
    done: set[str] = set()
    try:
        for cc in _stream(repo, repo_key, log_args(rev, since, max_commits, exclude)):
            done.add(cc.commit.row["sha"])
            yield cc
        return
    except RepositoryError as e:
        if not cannot_read_object(e):
            raise
    todo = [s for s in repo.run("rev-list", *_range(rev, since, max_commits, exclude), "--").split() if s not in done]
    stdin_args = ["log", "--no-walk=unsorted", "--stdin", f"--format={FORMAT}", *_DIFF]
    yield from past_unreadable(
        todo, lambda shas: _stream(repo, repo_key, stdin_args, stdin="".join(s + "\n" for s in shas).encode()),
        lambda sha: _without_lines(repo, repo_key, sha),
    )


def _stream(repo: GitRepo, repo_key: str, args: list[str], stdin: bytes | None = None) -> Iterator[CommitChanges]:
    scan = _Scanner(repo_key)
    buf = b""
    for data in repo.stream(*args, chunk=1 << 20, stdin=stdin):
        buf = yield from scan.feed(buf + data)
    yield from scan.feed(buf + b"\n")
    if scan.current is not None:
        yield scan.current


def _without_lines(repo: GitRepo, repo_key: str, sha: str) -> CommitChanges:
    """A commit's changed files from its trees alone (no blob is read: no rename detection, no lines)."""
    args = ["log", "--no-walk", f"--format={FORMAT}", "--raw", "--no-renames", "--diff-merges=first-parent",
            "--no-abbrev", "--full-index", sha, "--"]
    [cc] = list(_stream(repo, repo_key, args))
    cc.unreadable = True
    return cc


class _Scanner:
    """The state of one `git log` stream: the commit being read and its current patch section."""

    def __init__(self, repo_key: str):
        self.repo_key = repo_key
        self.current: CommitChanges | None = None
        self.patch_index = -1  # which raw change the current `diff --git` section belongs to

    def feed(self, buf: bytes) -> Generator[CommitChanges, None, bytes]:
        """Handle the whole lines of `buf`, yield finished commits, return what is left over."""
        end = buf.rfind(b"\n") + 1
        pos = 0
        # Only the lines that matter are visited (a regex finds them in C); a hunk's body lines
        # start with '+', '-' or '\\' and never match.
        while (m := _INTEREST.search(buf, pos, end)) is not None:
            if m[1] is not None:  # a commit: its message runs to the \x00
                nul = buf.find(b"\x00", m.end(), end)
                if nul == -1:
                    return buf[m.start() :]  # the rest of the message is in the next chunk
                if self.current is not None:
                    yield self.current
                self.current = CommitChanges(parse_commit(self.repo_key, buf[m.end() : nul]))
                self.patch_index = -1
                pos = nul + 1
                continue
            pos = buf.find(b"\n", m.end(), end) + 1 or end
            self._line(m, buf[m.start() : pos])
        return buf[end:]

    def _line(self, m: re.Match[bytes], line: bytes) -> None:
        current = self.current
        if current is None:
            return
        if m[2] is not None:
            current.files.append(_raw_change(line))
        elif m[3] is not None:
            self.patch_index += 1
        elif not 0 <= self.patch_index < len(current.files):
            return
        elif m[4] is not None:
            o_start, o_len = int(m[4]), int(m[5]) if m[5] is not None else 1
            n_start, n_len = int(m[6]), int(m[7]) if m[7] is not None else 1
            fc = current.files[self.patch_index]
            fc.hunks.append((o_start, o_len, n_start, n_len))
            if o_len:
                fc.deleted.append((o_start, o_len))
                fc.lines_deleted += o_len
            if n_len:
                fc.added.append((n_start, n_len))
                fc.lines_added += n_len
        else:
            current.files[self.patch_index].binary = True
