"""The `-U0` diffs of chosen commits, from one streaming `git log --stdin` process.

Only the commits asked for are read (the fix commits), each against its first parent with
git's rename detection; merges come back with their parents and no files (SZZ skips them).
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ltm.errors import RepositoryError
from ltm.extract.gitrepo import GitRepo, past_unreadable
from ltm.extract.history.changes import unquote_bytes

_HUNK_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".asciidoc")
DOC_NAMES = ("readme", "changelog", "changes", "history", "authors", "license", "notice", "contributing")


@dataclass
class Hunk:
    """One `-U0` hunk: the deleted lines (numbered in the old file) and the added lines (new file)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    deleted: list[tuple[int, str]] = field(default_factory=list)
    added: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class FileDiff:
    """One changed file: old and new path (None when added / deleted), binary flag, hunks."""

    old_path: str | None
    new_path: str | None
    binary: bool = False
    old_blob: str | None = None  # from the `index` line (absent for a pure rename or mode change)
    new_blob: str | None = None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


@dataclass
class CommitDiff:
    """A commit's parents and its changed files against the first parent (none for a merge)."""

    sha: str
    parents: tuple[str, ...]
    files: list[FileDiff] = field(default_factory=list)

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


def is_doc_path(path: str) -> bool:
    """Documentation by location or name: docs/ folders, README, CHANGELOG, .md/.rst/.txt files."""
    low = path.lower()
    name = low.rsplit("/", 1)[-1]
    return (
        low.startswith(("doc/", "docs/")) or "/docs/" in low or "/doc/" in low
        or low.endswith(DOC_SUFFIXES) or name.split(".")[0] in DOC_NAMES
    )


# header lines that set one side's path: the start, the side, the prefix before the path (None: no path)
_SIDES = ((b"--- ", "old", b"a/"), (b"+++ ", "new", b"b/"), (b"rename from ", "old", b""),
          (b"rename to ", "new", b""), (b"new file mode", "old", None), (b"deleted file mode", "new", None))


def default_path(line: bytes) -> str | None:
    """The path of a `diff --git a/P b/P` line, for a change without ---/+++ lines (a pure mode change);
    None when git quoted it (the ---/+++ or rename lines then say it)."""
    rest = line[len(b"diff --git "):].rstrip(b"\n")
    if rest.startswith(b'"') or b" b/" not in rest:
        return None
    return rest.split(b" b/", 1)[1].decode("utf-8", errors="surrogateescape")


def file_header(line: bytes) -> tuple[str, str | None] | None:
    """("old" or "new", its path) for a patch's file header line that sets one (None for /dev/null and
    for `new file mode` / `deleted file mode`: that side is absent); None for any other line."""
    for start, side, prefix in _SIDES:
        if line.startswith(start):
            return side, None if prefix is None else diff_path(line[len(start):], prefix)
    return None


def diff_path(raw: bytes, prefix: bytes) -> str | None:
    """The path of a `---`/`+++`/rename line (None for /dev/null), its bytes kept for git (`surrogateescape`)."""
    # git ends a name that has a space with a tab; a quoted name holds no raw tab
    raw = unquote_bytes(raw.rstrip(b"\n").split(b"\t")[0] if not raw.startswith(b'"') else raw.rstrip(b"\n\t"))
    if raw == b"/dev/null":
        return None
    return raw.removeprefix(prefix).decode("utf-8", errors="surrogateescape")


def _parse(lines: Iterator[bytes]) -> Iterator[CommitDiff]:
    cur: CommitDiff | None = None
    f: FileDiff | None = None
    hunk: Hunk | None = None
    old_no = new_no = 0
    for line in lines:
        if line.startswith(b"\x00"):
            if cur is not None:
                yield cur
            sha, *parents = line[1:].decode().split()
            cur, f, hunk = CommitDiff(sha, tuple(parents)), None, None
        elif cur is None:
            continue
        elif line.startswith(b"diff --git "):
            f, hunk = FileDiff(None, None), None
            cur.files.append(f)
            f.old_path = f.new_path = default_path(line)
        elif f is None:
            continue
        elif hunk is not None and line[:1] in (b"-", b"+", b"\\"):
            text = line[1:].rstrip(b"\n").decode("utf-8", errors="replace")
            if line.startswith(b"-"):
                hunk.deleted.append((old_no, text))
                old_no += 1
            elif line.startswith(b"+"):
                hunk.added.append((new_no, text))
                new_no += 1
        elif line.startswith(b"@@ "):
            m = _HUNK_RE.match(line)
            if m:
                a, b, c, d = m.groups()
                hunk = Hunk(int(a), int(b) if b is not None else 1, int(c), int(d) if d is not None else 1)
                f.hunks.append(hunk)
                old_no, new_no = hunk.old_start, hunk.new_start
        elif (header := file_header(line)) is not None:
            if header[0] == "old":
                f.old_path = header[1]
            else:
                f.new_path = header[1]
        elif line.startswith(b"index "):
            ids = line[6:].strip().split(b" ")[0].split(b"..")
            if len(ids) == 2:
                old, new = (x.decode() for x in ids)
                f.old_blob = None if set(old) == {"0"} else old
                f.new_blob = None if set(new) == {"0"} else new
        elif line.startswith(b"Binary files "):
            f.binary = True
    if cur is not None:
        yield cur


def commit_diffs(repo: GitRepo, shas: Iterable[str]) -> Iterator[CommitDiff]:
    """The `-U0` diff of each commit against its first parent, in the order given, one process.

    A commit whose diff git cannot make (an object missing, corrupt or not fetched by a partial
    clone) comes without files, and the rest are diffed by a new process from the next one.
    """
    yield from past_unreadable(
        list(dict.fromkeys(shas)), lambda todo: _diffs(repo, todo),
        lambda sha: CommitDiff(sha, tuple(repo.run("rev-list", "--parents", "-n", "1", sha).split()[1:])),
    )


def _diffs(repo: GitRepo, wanted: list[str]) -> Iterator[CommitDiff]:
    cmd = repo._cmd(
        "log", "--no-walk=unsorted", "--stdin", "-p", "-U0", "-M", "--full-index", "--no-color", "--no-ext-diff",
        "--no-textconv", "--format=%x00%H %P",
    )
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=repo.env)
    assert proc.stdin and proc.stdout and proc.stderr

    def feed() -> None:
        try:
            proc.stdin.write("".join(s + "\n" for s in wanted).encode())  # type: ignore[union-attr]
        except BrokenPipeError:  # git stopped early: its error is raised below
            pass
        finally:
            proc.stdin.close()  # type: ignore[union-attr]

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    last = None  # held back until git has exited well: when it fails, the last commit is the one it failed on
    try:
        for diff in _parse(iter(proc.stdout.readline, b"")):
            if last is not None:
                yield last
            last = diff
    finally:
        proc.stdout.close()
        err = proc.stderr.read().decode(errors="replace")
        rc = proc.wait()
        writer.join()
    if rc != 0:
        raise RepositoryError(f"git log --stdin failed in {repo.path}: {err.strip()}")
    if last is not None:
        yield last
