"""Read-only access to one git repository: validation, streaming processes, blobs.

We never write into a mined repository (no config, no index, no fetch here). Every read is one
long-lived git process: `git log` for history, `git ls-tree` for a tree, `git cat-file --batch`
for blobs; never a git process per commit or per file.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import git

from ltm.errors import RepositoryError

# Read-only, quiet, independent of the user's pager and path quoting.
_GIT = ["git", "-c", "core.quotepath=off", "-c", "log.showSignature=false", "--no-pager"]


@dataclass(frozen=True)
class TreeEntry:
    """One blob in a tree: its path (decoded, unique), blob id, size and mode."""

    path: str
    blob: str
    size: int
    mode: str


T = TypeVar("T")

# What git says when it cannot read an object it needs (missing, corrupt, or not fetched by a
# partial clone whose remote cannot be reached).
_UNREADABLE = ("unable to read", "could not fetch", "could not read", "bad object", "missing blob", "corrupt")


def cannot_read_object(error: Exception) -> bool:
    """Whether a failed git command failed on an object the repository cannot give."""
    return isinstance(error, RepositoryError) and any(s in str(error).lower() for s in _UNREADABLE)


def past_unreadable(todo: list[str], stream: Callable[[list[str]], Iterator[T]], failed: Callable[[str], T]) -> Iterator[T]:
    """What `stream(commits)` yields for `todo`, going on past the commits git cannot read.

    `stream` runs one git process over the commits it is given, in order, one item per commit;
    when git fails on an object it cannot read, the commit it failed on (the first not yielded)
    becomes `failed(sha)` and a new process takes the rest. Any other failure is raised.
    """
    while todo:
        finished = 0
        try:
            for item in stream(todo):
                finished += 1
                yield item
            return
        except RepositoryError as e:
            if not cannot_read_object(e):
                raise
        yield failed(todo[finished])
        todo = todo[finished + 1:]


MISSING = -1
"""`TreeEntry.size` of a blob the repository cannot give (missing, corrupt, not fetched)."""


def decode_path(raw: bytes) -> str:
    """A repository path as text; undecodable bytes become backslash escapes (still unique)."""
    return raw.decode("utf-8", errors="backslashreplace")


def lake_path(path: str) -> str:
    """A path read with `surrogateescape` (its bytes kept, to hand back to git) in the form the lake
    and the ids hold (`decode_path`): a text pyarrow can write, the same as the history stage's."""
    return decode_path(path.encode("utf-8", "surrogateescape"))


def _one_line(stderr: str) -> str:
    return "; ".join(line.strip() for line in stderr.strip().splitlines() if line.strip())


def is_safe_path(path: str) -> bool:
    """False for a tree path git itself refuses to check out: `..`, `.` or `.git` parts, absolute.

    Such trees can be crafted (`git mktree`; `git fsck` flags them). Their paths would point out
    of the repository if a reader joined them to its root, so extraction skips and counts them.
    """
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and not any(p in ("", ".", "..") or p.lower() == ".git" for p in parts)


class GitRepo:
    """A validated repository opened read-only."""

    def __init__(self, path: str | Path):
        p = Path(path).expanduser()
        if not p.exists():
            raise RepositoryError(f"{p} does not exist: pass the path of a git repository")
        try:
            self._repo = git.Repo(p, search_parent_directories=False)
        except git.InvalidGitRepositoryError as e:
            raise RepositoryError(f"{p} is not a git repository: run `git init` there or pass another path") from e
        except git.NoSuchPathError as e:
            raise RepositoryError(f"{p} does not exist: pass the path of a git repository") from e
        self.path = Path(self._repo.working_tree_dir or self._repo.git_dir).resolve()
        self.git_dir = Path(self._repo.git_dir).resolve()
        self.env: dict[str, str] | None = None  # the environment of our git processes (None: inherited)

    def _cmd(self, *args: str) -> list[str]:
        return [*_GIT, "--git-dir", str(self.git_dir), *args]

    def use_commit_graph(self, objects_dir: Path) -> bool:
        """Speed up history walks (`git blame`) with a commit-graph kept in `objects_dir`, outside the repository.

        The graph is written into an object directory of our own (under the home's cache) that
        every later git process of this `GitRepo` sees as an alternate; the mined repository is
        not touched. Git prefers the repository's own commit-graph when it has one, and reads
        commits the graph lacks from the objects, so a stale graph is slower, never wrong. The graph
        carries changed-path Bloom filters, which let `git blame` skip commits that did not touch
        the blamed path without reading their trees; a rewrite reuses the filters it already has.
        False (and nothing changes) for a shallow repository, where git ignores commit-graphs,
        or when the folder or the graph cannot be written.
        """
        if self.is_shallow():
            return False
        try:
            (objects_dir / "info").mkdir(parents=True, exist_ok=True)
        except OSError:  # a read-only cache: go without (writing the results will say what is wrong)
            return False
        outer = os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        env = {**os.environ, "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(filter(None, [outer, str(objects_dir)]))}
        res = subprocess.run(
            self._cmd("commit-graph", "write", "--reachable", "--changed-paths", "--no-progress", "--object-dir",
                      str(objects_dir)),
            capture_output=True, env=env,
        )
        if res.returncode != 0:
            return False
        self.env = env
        return True

    def run(self, *args: str, check: bool = True) -> str:
        """Run a short git command and return its stdout as text."""
        res = subprocess.run(self._cmd(*args), capture_output=True, check=False, env=self.env)
        if check and res.returncode != 0:
            raise RepositoryError(
                f"git {' '.join(args[:2])} failed in {self.path}: {_one_line(res.stderr.decode(errors='replace'))}"
            )
        return res.stdout.decode("utf-8", errors="replace")

    def head(self, ref: str = "HEAD") -> str:
        """The commit sha of `ref`; a clear error for an empty repository."""
        res = subprocess.run(
            self._cmd("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"), capture_output=True, env=self.env
        )
        if res.returncode != 0:
            if ref == "HEAD":
                raise RepositoryError(f"{self.path} has no commits yet: commit something, then ingest it")
            raise RepositoryError(f"{ref!r} is not a branch or commit in {self.path}")
        return res.stdout.decode().strip()

    def branch(self) -> str | None:
        """The branch HEAD points at, or None when detached."""
        out = self.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip()
        return out or None

    def is_ancestor(self, old: str, new: str) -> bool:
        """True when commit `old` exists and is reachable from `new`."""
        res = subprocess.run(self._cmd("merge-base", "--is-ancestor", old, new), capture_output=True, env=self.env)
        return res.returncode == 0

    def is_shallow(self) -> bool:
        return self.run("rev-parse", "--is-shallow-repository").strip() == "true"

    def stream(self, *args: str, chunk: int = 1 << 16, stdin: bytes | None = None) -> Iterator[bytes]:
        """Stream stdout of one git process in chunks (`stdin` fed by a thread); raise if it fails."""
        proc = subprocess.Popen(self._cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env,
                                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
        assert proc.stdout is not None
        if stdin is not None:
            def feed() -> None:
                try:
                    proc.stdin.write(stdin)  # type: ignore[union-attr]
                except BrokenPipeError:  # git stopped reading (it failed): its error is reported below
                    pass
                finally:
                    proc.stdin.close()  # type: ignore[union-attr]

            threading.Thread(target=feed, daemon=True).start()
        try:
            while data := proc.stdout.read(chunk):
                yield data
        finally:
            proc.stdout.close()
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            rc = proc.wait()
        if rc != 0:
            raise RepositoryError(
                f"git {args[0]} failed in {self.path}: {_one_line(err)} (is the repository corrupt? `git fsck` tells)"
            )

    def stream_lines(self, *args: str, stdin: bytes | None = None) -> Iterator[bytes]:
        """Stream stdout of one git process line by line (bytes, newline kept); raise if it fails."""
        # files, not pipes: a chatty stderr can't block git, and stdin needs no thread to feed it
        with tempfile.TemporaryFile() as errf, tempfile.TemporaryFile() as inf:
            if stdin is not None:
                inf.write(stdin)
                inf.seek(0)
            proc = subprocess.Popen(self._cmd(*args), stdout=subprocess.PIPE, stderr=errf, bufsize=1 << 20, env=self.env,
                                    stdin=inf if stdin is not None else subprocess.DEVNULL)
            assert proc.stdout is not None
            try:
                yield from proc.stdout
            finally:
                proc.stdout.close()
                if proc.poll() is None:  # the caller stopped early
                    proc.kill()
                rc = proc.wait()
            errf.seek(0)
            err = errf.read().decode(errors="replace")
        if rc not in (0, -9):
            raise RepositoryError(f"git {args[0]} failed in {self.path}: {_one_line(err)} (is the repository corrupt? `git fsck` tells)")

    def tree(self, rev: str) -> list[TreeEntry]:
        """Every blob in the tree of `rev` (regular files only: no symlinks, no submodules).

        A blob the repository cannot give has size `MISSING`. `ls-tree -l` fails outright on one
        that a partial clone cannot fetch; the listing is then made without sizes, the missing
        blobs found by `rev-list --missing=print` (which never fetches) and the others sized by
        one `cat-file --batch-check`.
        """
        try:
            return list(_tree_entries(self.run_bytes("ls-tree", "-r", "-l", "-z", "--full-tree", rev).split(b"\0")))
        except RepositoryError as e:
            if not cannot_read_object(e):
                raise
        listed = self.run("rev-list", "--objects", "--no-walk", "--missing=print", rev)
        missing = {line[1:].strip() for line in listed.splitlines() if line.startswith("?")}
        entries = []
        for rec in self.run_bytes("ls-tree", "-r", "-z", "--full-tree", rev).split(b"\0"):
            meta, _, raw_path = rec.partition(b"\t")
            if rec and meta.split()[1] == b"blob" and meta.split()[0] in (b"100644", b"100755"):
                entries.append((meta.split()[0].decode(), meta.split()[2].decode(), decode_path(raw_path)))
        present = [blob for _, blob, _ in entries if blob not in missing]
        checked = self.run_bytes("cat-file", "--batch-check", stdin="".join(b + "\n" for b in present).encode())
        sizes = {p[0].decode(): int(p[2]) for p in (line.split() for line in checked.splitlines()) if len(p) == 3}
        return [TreeEntry(path, blob, sizes.get(blob, MISSING), mode) for mode, blob, path in entries]

    def run_bytes(self, *args: str, stdin: bytes | None = None) -> bytes:
        """Stdout of one git command as bytes; RepositoryError naming the command when it fails."""
        return b"".join(self.stream(*args, stdin=stdin))

    def blobs(self) -> "BlobReader":
        return BlobReader(self._cmd("cat-file", "--batch"), self.env)


def _tree_entries(records: list[bytes]) -> Iterator[TreeEntry]:
    for rec in records:
        if not rec:
            continue
        meta, _, raw_path = rec.partition(b"\t")
        mode, kind, blob, size = meta.split()
        # 100644/100755 are regular files; 120000 is a symlink (never followed), 160000 a submodule.
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            continue
        # ls-tree -l prints no size for a blob it cannot read (missing, corrupt, not fetched by a
        # partial clone): the entry is listed with size MISSING, and its readers skip and count it
        yield TreeEntry(decode_path(raw_path), blob.decode(), int(size) if size.isdigit() else MISSING, mode.decode())


_PIPE_ROOM = 8192
"""Bytes of object ids written to a `cat-file` at once without a thread: far less than a pipe holds, so the
write returns even while git waits for us to read what it answered."""


def _feed(stdin, blobs: list[str]) -> threading.Thread | None:
    """Write the ids to a `cat-file` process: at once when few, else from a thread (returned) so neither pipe
    can block the other."""
    payload = b"".join(b.encode() + b"\n" for b in blobs)

    def feed() -> None:
        stdin.write(payload)
        stdin.flush()

    if len(payload) <= _PIPE_ROOM:
        feed()
        return None
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return writer


class BlobReader:
    """One `git cat-file --batch` process: blob id in, bytes out. Use as a context manager."""

    def __init__(self, cmd: list[str], env: dict[str, str] | None = None):
        self._cmd, self._env = cmd, env
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self._check: subprocess.Popen | None = None  # `cat-file --batch-check`, started by the first `sizes`

    def opener(self) -> tuple[list[str], dict[str, str] | None]:
        """What another process needs to open a reader of the same repository: `BlobReader(*opener)`."""
        return self._cmd, self._env

    def sizes(self, blobs: list[str]) -> dict[str, int | None]:
        """Size in bytes of many blobs (None when missing) in one round trip, without reading them."""
        if self._check is None:
            cmd = [a if a != "--batch" else "--batch-check" for a in self._cmd]
            self._check = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL, env=self._env)
        proc = self._check
        assert proc.stdin and proc.stdout
        writer = _feed(proc.stdin, blobs)
        out: dict[str, int | None] = {}
        for blob in blobs:
            header = proc.stdout.readline().split()
            out[blob] = None if len(header) < 3 or header[1] == b"missing" else int(header[2])
        if writer is not None:
            writer.join()
        return out

    def read(self, blob: str) -> bytes | None:
        """The blob's bytes; None when the repository cannot give it (missing, corrupt, not fetched)."""
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(blob.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            return None
        size = int(header[2])
        data = self._proc.stdout.read(size)
        self._proc.stdout.read(1)  # the newline after the content
        return data

    def read_many(self, blobs: list[str]) -> Iterator[tuple[str, bytes | None]]:
        """(blob id, bytes or None when missing) for many blobs in one round trip; a thread feeds the ids so
        neither pipe can block."""
        assert self._proc.stdin and self._proc.stdout
        writer = _feed(self._proc.stdin, blobs)
        for blob in blobs:
            header = self._proc.stdout.readline().split()
            if len(header) < 3 or header[1] == b"missing":
                yield blob, None
                continue
            data = self._proc.stdout.read(int(header[2]))
            self._proc.stdout.read(1)
            yield blob, data
        if writer is not None:
            writer.join()

    def close(self) -> None:
        """Stop the process; safe after a read that was abandoned half way."""
        for proc in (self._proc, self._check):
            if proc is None:
                continue
            for pipe in (proc.stdin, proc.stdout):
                try:
                    if pipe:
                        pipe.close()
                except OSError:
                    pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
