"""SZZ: the commits that introduced the lines a fix changed, with the function they sat in.

For each fix commit (merges and very large commits skipped), the deleted and changed lines of
every file are blamed at the fix's parent with ONE `git blame --porcelain -w -M -C` per file and
one `-L a,b` per run of lines (never a process per line). Blank and comment lines are ignored;
`-w` ignores whitespace and `-M -C` follow lines moved within and across files. Candidates
committed after the bug's report date are dropped. A fix that only adds lines falls back to the
last earlier commit that changed the enclosing function: `git log -1 -L start,end:path` at the
parent (incremental since git 2.27, so it stops at the first commit that touched the range).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from ltm import ids
from ltm.bugs.diffs import CommitDiff, FileDiff
from ltm.extract.code_entities import parse_definitions
from ltm.extract.gitrepo import BlobReader, GitRepo
from ltm.extract.languages import language_for

MAX_FILES = 100
BLAME_FLAGS = ("-w", "-M", "-C")  # ignore whitespace, follow moved and copied lines
WORKERS = min(4, os.cpu_count() or 1)
_COMMENT_PREFIXES = ("#", "//", "/*", "*", '"""', "'''")


def is_blameable(line: str) -> bool:
    """False for blank and comment lines, which SZZ does not blame."""
    s = line.strip()
    return bool(s) and not s.startswith(_COMMENT_PREFIXES)


@dataclass(frozen=True)
class Entity:
    """A function or class as it was in one version of a file."""

    label: str  # Function or Class
    id: str
    qualified_name: str
    line_start: int
    line_end: int


@dataclass
class BlameLine:
    sha: str
    path: str
    committed_at: int


@dataclass
class Candidate:
    """One introducing commit for one fix, per blamed entity (None: lines outside any entity)."""

    sha: str
    path: str
    committed_at: int
    entity: Entity | None
    lines: int  # lines blamed on it (0 for function_history)
    method: str  # blame or function_history


@dataclass
class FixResult:
    """What SZZ and the fix's own diff say: affected entities and introducing candidates."""

    sha: str
    affected: dict[str, Entity] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    skipped: str | None = None  # merge, too_many_files
    dropped_after_report: int = 0
    code_paths: list[str] = field(default_factory=list)
    all_paths: list[str] = field(default_factory=list)

    @property
    def introducing(self) -> set[str]:
        return {c.sha for c in self.candidates}


def _ranges(lines: list[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as runs: [3, 4, 5, 9] -> [(3, 5), (9, 9)]."""
    out: list[tuple[int, int]] = []
    for n in sorted(set(lines)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def blame_lines(
    repo: GitRepo, rev: str, path: str, lines: list[int], flags: tuple[str, ...] = BLAME_FLAGS
) -> dict[int, BlameLine]:
    """Who last changed each of `lines` of `path` at `rev`: one porcelain blame with -L ranges.

    `-M -C` follow a moved or copied block when it has at least 20 alphanumeric characters
    inside the blamed ranges (git's default threshold).
    """
    if not lines:
        return {}
    args = ["blame", "--porcelain", *flags]
    for a, b in _ranges(lines):
        args += ["-L", f"{a},{b}"]
    res = subprocess.run(repo._cmd(*args, rev, "--", path), capture_output=True)
    if res.returncode != 0:  # a line range past the end (a diff git computed differently): skip the file
        return {}
    out: dict[int, BlameLine] = {}
    times: dict[str, int] = {}
    paths: dict[str, str] = {}
    sha, final = "", 0
    for raw in res.stdout.split(b"\n"):
        if not raw:
            continue
        if raw.startswith(b"\t"):
            out[final] = BlameLine(sha, paths.get(sha, path), times.get(sha, 0))
            continue
        head, _, rest = raw.partition(b" ")
        if len(head) == 40 and rest[:1].isdigit():
            sha = head.decode()
            final = int(rest.split(b" ")[1])
        elif head == b"committer-time":
            times[sha] = int(rest)
        elif head == b"filename":
            paths[sha] = rest.decode("utf-8", errors="surrogateescape")
    return out


def last_change(repo: GitRepo, rev: str, path: str, start: int, end: int) -> BlameLine | None:
    """The newest commit up to `rev` that changed lines start..end of `path` (`git log -1 -L`)."""
    res = subprocess.run(
        repo._cmd("log", "-1", "--no-patch", "--format=%H %ct", "-L", f"{start},{end}:{path}", rev), capture_output=True
    )
    fields = res.stdout.decode(errors="replace").split()
    if res.returncode != 0 or len(fields) < 2:
        return None
    return BlameLine(fields[0], path, int(fields[1]))


class EntityIndex:
    """Function and class spans of file versions, parsed once per blob.

    A version is named by a blob id when the diff gave one, else by `rev:path`.
    """

    def __init__(self, repo_key: str, blobs: BlobReader):
        self._repo_key, self._blobs = repo_key, blobs
        self._cache: dict[tuple[str, str], list[Entity]] = {}

    def entities(self, obj: str, path: str) -> list[Entity]:
        key = (obj, path)
        if key not in self._cache:
            spec = language_for(path)
            found: list[Entity] = []
            if spec is not None:
                try:
                    src = self._blobs.read(obj)
                except Exception:  # noqa: BLE001 - a path git cannot show at rev has no entities
                    src = b""
                if src and b"\0" not in src[:8192]:
                    defs, _ = parse_definitions(spec, src)
                    for d in defs:
                        label = "Class" if d["kind"] == "class" else "Function"
                        make = ids.class_id if label == "Class" else ids.function_id
                        found.append(Entity(label, make(self._repo_key, path, d["qualified_name"]),
                                            d["qualified_name"], d["line_start"], d["line_end"]))
            self._cache[key] = found
        return self._cache[key]

    def at(self, obj: str, path: str, line: int) -> Entity | None:
        """The innermost function or class of the version `obj` of `path` that spans `line`."""
        best = None
        for e in self.entities(obj, path):
            if e.line_start <= line <= e.line_end and (best is None or e.line_start >= best.line_start):
                best = e
        return best


def _old(fd: FileDiff, parent: str) -> str:
    return fd.old_blob or f"{parent}:{fd.old_path}"


def _affected(fd: FileDiff, fix: CommitDiff, index: EntityIndex, out: dict[str, Entity]) -> None:
    parent = fix.parents[0] if fix.parents else None
    for h in fd.hunks:
        if fd.old_path and parent:
            for n, _ in h.deleted:
                if e := index.at(_old(fd, parent), fd.old_path, n):
                    out[e.id] = e
        if fd.new_path:
            for n, _ in h.added:
                if e := index.at(fd.new_blob or f"{fix.sha}:{fd.new_path}", fd.new_path, n):
                    out[e.id] = e


def analyze_fix(
    repo: GitRepo, fix: CommitDiff, index: EntityIndex, report_date: datetime | None = None,
    max_files: int = MAX_FILES, affects: bool = True, flags: tuple[str, ...] = BLAME_FLAGS,
) -> FixResult:
    """SZZ candidates of one fix commit and, with `affects`, the entities it changed."""
    res = FixResult(fix.sha)
    res.all_paths = [f.path for f in fix.files]
    res.code_paths = [f.path for f in fix.files if language_for(f.path)]
    if fix.is_merge:
        res.skipped = "merge"
        return res
    if not fix.parents:
        res.skipped = "root_commit"
        return res
    if len(fix.files) > max_files:
        res.skipped = "too_many_files"
        return res
    parent = fix.parents[0]
    for fd in fix.files:
        if affects and not fd.binary:
            _affected(fd, fix, index, res.affected)
    limit = int(report_date.timestamp()) if report_date else None
    blamed: dict[tuple[str, str | None], Candidate] = {}

    def keep(b: BlameLine) -> bool:
        if limit is not None and b.committed_at > limit:
            res.dropped_after_report += 1
            return False
        return True

    def add(b: BlameLine, entity: Entity | None, method: str, lines: int = 1) -> None:
        key = (b.sha, entity.id if entity else None)
        c = blamed.setdefault(key, Candidate(b.sha, b.path, b.committed_at, entity, 0, method))
        c.lines += lines

    deleted = {fd.old_path: (fd, [n for h in fd.hunks for n, t in h.deleted if is_blameable(t)])
               for fd in fix.files if fd.old_path and not fd.binary}
    if any(lines for _, lines in deleted.values()):
        for path, (fd, lines) in deleted.items():
            for n, b in blame_lines(repo, parent, path, lines, flags).items():
                if keep(b):
                    add(b, index.at(_old(fd, parent), path, n), "blame")
    else:
        for fd in fix.files:  # add-only fix: the enclosing function's last change before the fix
            if fd.binary or not fd.old_path:
                continue
            path = fd.old_path
            enclosing = {e for h in fd.hunks
                         if (e := index.at(_old(fd, parent), path, h.old_start)
                             or index.at(_old(fd, parent), path, h.old_start + 1))}
            for e in sorted(enclosing, key=lambda e: e.line_start):
                last = last_change(repo, parent, path, e.line_start, e.line_end)
                if last is not None and keep(last):
                    add(last, e, "function_history", 0)
    res.candidates = list(blamed.values())
    return res


def analyze_fixes(
    repo: GitRepo, repo_key: str, diffs: Iterable[CommitDiff], report_dates: dict[str, datetime | None] | None = None,
    max_files: int = MAX_FILES, workers: int = WORKERS, affects: bool = True,
    flags: tuple[str, ...] = BLAME_FLAGS,
) -> Iterator[FixResult]:
    """`analyze_fix` over many fixes with `workers` threads (git runs in subprocesses, so blames
    overlap); each thread has its own `cat-file --batch` reader. Results come in input order."""
    dates = report_dates or {}
    local = threading.local()
    readers: list[BlobReader] = []
    guard = threading.Lock()

    def one(diff: CommitDiff) -> FixResult:
        if not hasattr(local, "index"):
            reader = repo.blobs()
            with guard:
                readers.append(reader)
            local.index = EntityIndex(repo_key, reader)
        return analyze_fix(repo, diff, local.index, dates.get(diff.sha), max_files, affects, flags)

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            yield from pool.map(one, diffs)
    finally:
        for r in readers:
            r.close()
