"""SZZ: the commits that introduced the lines a fix changed, with the function they sat in.

For each fix commit (merges, very large commits and rewrites skipped), the deleted and changed lines of
every file are blamed at the fix's parent with ONE `git blame --porcelain -w -M` per file and one
`-L a,b` per run of lines (never a process per line). Blank and comment lines are ignored; `-w`
ignores whitespace, `-M` follows lines moved within a file and blame follows file renames.
Copies across files (`-C`) are not followed: they cost a search of the other files each walked
commit changed, and lower agreement with PyDriller's SZZ (BENCHMARKS.md). A fix that only adds
lines falls back to the last earlier commit that changed the enclosing function: the newest commit
among the function's lines at the parent, from one `git blame --incremental` stopped as soon as it
is known (`newest_in_spans`), not a blame of the function's whole history.

The main thread reads the diffs, plans each fix's blames and maps blamed lines to functions
(spans parsed once per blob, from the shared span cache when the history stage has them); a
small thread pool runs the `git blame` processes, so both cores work. Results come in input order.
"""

from __future__ import annotations

import os
import subprocess
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import accumulate
from typing import NamedTuple

from ltm import ids
from ltm.bugs.diffs import CommitDiff, FileDiff
from ltm.code_paths import is_auxiliary_entity
from ltm.extract.gitrepo import GitRepo, lake_path
from ltm.extract.languages import language_for
from ltm.extract.history.changes import unquote_path
from ltm.extract.history.spans import Span, SpanCache
from ltm.extract.history.version_chains import SpanReader

MAX_FILES = 100
# A fix that changed more of the package's definitions than this is a rewrite or a sweep (ripgrep's "cli:
# replace clap with lexopt" closes five issues and changes 1,467 of its functions), not a localised fix:
# naming every definition it touched as affected by each of its bugs, and every commit behind them as
# introducing one, is noise. Tests are not counted: fastapi's "Fix parameter aliases" changes 149 test
# functions and 12 of the package's.
MAX_DEFINITIONS = 50
MEMO_VERSIONS = 4096  # file versions whose entities are held (the span cache has the rest)
BLAME_FLAGS = ("-w", "-M")  # ignore whitespace, follow lines moved within a file
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
    skipped: str | None = None  # merge, root_commit, too_many_files, too_many_definitions
    all_paths: list[str] = field(default_factory=list)

    @property
    def introducing(self) -> set[str]:
        return {c.sha for c in self.candidates}


def _ranges(lines: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as runs: [3, 4, 5, 9] -> [(3, 5), (9, 9)]."""
    out: list[tuple[int, int]] = []
    for n in sorted(set(lines)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def blame_lines(
    repo: GitRepo, rev: str, path: str, lines: Iterable[int], flags: tuple[str, ...] = BLAME_FLAGS
) -> dict[int, BlameLine]:
    """Who last changed each of `lines` of `path` at `rev`: one porcelain blame with -L ranges.

    `-M` follows a moved block when it has at least 20 alphanumeric characters inside the
    blamed ranges (git's default threshold). A range git refuses (past the end) gives {}.
    """
    ranges = _ranges(lines)
    if not ranges:
        return {}
    args = ["blame", "--porcelain", *flags]
    for a, b in ranges:
        args += ["-L", f"{a},{b}"]
    res = subprocess.run(repo._cmd(*args, rev, "--", path), capture_output=True, env=repo.env)
    if res.returncode != 0:
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
            paths[sha] = unquote_path(rest)
    return out


class _Version(NamedTuple):
    """One file version's definitions as `EntityIndex.at` searches them."""

    path: str  # as the lake and the ids hold it
    spans: list[Span]  # by first line; within a line in source order
    starts: list[int]  # each span's first line
    reach: list[int]  # the last line any span up to this one reaches


class EntityIndex:
    """Function and class spans of file versions (a blob id, else `rev:path`), parsed once each.

    An entity is made only for a span `at` answers with: a fix asks about a few lines of files that
    hold hundreds of definitions."""

    def __init__(self, repo_key: str, spans: SpanReader):
        self._repo_key, self._spans = repo_key, spans
        self._memo: dict[tuple[str, str], _Version] = {}

    def _version(self, obj: str, path: str) -> _Version:
        got = self._memo.get((obj, path))
        if got is None:
            if len(self._memo) >= MEMO_VERSIONS:  # the oldest first: fixes come in order, a window at a time
                self._memo.pop(next(iter(self._memo)))
            spec = language_for(path)
            spans: list[Span] = []
            if spec is not None:
                try:
                    spans = sorted(self._spans.spans(obj, spec) or [], key=lambda s: s.line_start)
                except Exception:  # noqa: BLE001 - a path git cannot show at rev has no entities
                    spans = []
            got = self._memo[(obj, path)] = _Version(lake_path(path), spans, [s.line_start for s in spans],
                                                      list(accumulate((s.line_end for s in spans), max)))
        return got

    def at(self, obj: str, path: str, line: int) -> Entity | None:
        """The innermost function or class of the version `obj` of `path` that spans `line`: of the
        spans holding it, the one that starts last (the later in the source where two start on one line)."""
        v = self._version(obj, path)
        i = bisect_right(v.starts, line)
        while i and v.reach[i - 1] >= line:
            i -= 1
            best = v.spans[i]
            if best.line_end >= line:
                label, make = ("Class", ids.class_id) if best.kind == "class" else ("Function", ids.function_id)
                return Entity(label, make(self._repo_key, v.path, best.qualified_name), best.qualified_name,
                              best.line_start, best.line_end)
        return None


@dataclass
class Job:
    """One file's blame for one fix: its deleted lines, or (add-only fix) the enclosing functions."""

    path: str
    old: str
    lines: list[int] = field(default_factory=list)
    functions: list[Entity] = field(default_factory=list)


def _old(fd: FileDiff, parent: str) -> str:
    return fd.old_blob or f"{parent}:{fd.old_path}"


def _affected(
    fd: FileDiff, fix: CommitDiff, parent: str, index: EntityIndex, out: dict[str, Entity], package: set[str],
) -> None:
    """The entities whose lines the fix changed in one file into `out`; the package's own (not tests,
    docs, examples or vendored code: `code_paths`) into `package` too, by id."""
    for h in fd.hunks:
        if fd.old_path:
            for n, _ in h.deleted:
                if e := index.at(_old(fd, parent), fd.old_path, n):
                    _add(e, fd.old_path, out, package)
        if fd.new_path:
            for n, _ in h.added:
                if e := index.at(fd.new_blob or f"{fix.sha}:{fd.new_path}", fd.new_path, n):
                    _add(e, fd.new_path, out, package)


def _add(e: Entity, path: str, out: dict[str, Entity], package: set[str]) -> None:
    """One changed line's entity; whether it is the package's own is asked once per entity, not per line."""
    if e.id in out:
        return
    out[e.id] = e
    if not is_auxiliary_entity(lake_path(path), e.qualified_name):
        package.add(e.id)


def plan_fix(
    fix: CommitDiff, index: EntityIndex, max_files: int, affects: bool, max_definitions: int = MAX_DEFINITIONS,
) -> tuple[FixResult, list[Job]]:
    """The fix's result so far (skip reason, affected entities) and the blames it needs.

    A fix that changed more than `max_definitions` of the package's functions and classes (its tests, docs,
    examples and vendored code aside: a fix with many new test cases is still a fix) is skipped whole (no
    affected entities, no blame), as one of more than `max_files` files is."""
    res = FixResult(fix.sha, all_paths=[lake_path(f.path) for f in fix.files])
    if fix.is_merge:
        res.skipped = "merge"
    elif not fix.parents:
        res.skipped = "root_commit"
    elif len(fix.files) > max_files:
        res.skipped = "too_many_files"
    if res.skipped:
        return res, []
    parent = fix.parents[0]
    files = [fd for fd in fix.files if not fd.binary]
    affected: dict[str, Entity] = {}
    package: set[str] = set()
    for fd in files:
        _affected(fd, fix, parent, index, affected, package)
    if len(package) > max_definitions:
        res.skipped = "too_many_definitions"
        return res, []
    if affects:
        res.affected = affected
    jobs = [Job(fd.old_path, _old(fd, parent), [n for h in fd.hunks for n, t in h.deleted if is_blameable(t)])
            for fd in files if fd.old_path]
    jobs = [j for j in jobs if j.lines]
    if jobs:
        return res, jobs
    for fd in files:  # add-only fix: the enclosing functions' last change before the fix
        if fd.old_path:
            job = Job(fd.old_path, _old(fd, parent))
            found = {e for h in fd.hunks
                     if (e := index.at(job.old, job.path, h.old_start) or index.at(job.old, job.path, h.old_start + 1))}
            job.functions = sorted(found, key=lambda e: (e.line_start, e.id))
            if job.functions:
                jobs.append(job)
    return res, jobs


def newest_in_spans(
    repo: GitRepo, rev: str, path: str, spans: list[tuple[int, int]], flags: tuple[str, ...] = BLAME_FLAGS
) -> dict[int, BlameLine]:
    """For each span (first, last line) of `path` at `rev`: one blamed line of the newest commit among
    its lines (the highest committer time, then the highest sha), from one `git blame --incremental`.

    Blame hands out lines newest commit first (its queue is ordered by committer date) and the
    incremental format prints each as it is found, so the process is stopped once every span has a
    line and a commit older than all of theirs has been printed: a function's last change is found
    without walking the rest of its history. Returns {line: BlameLine}, one line per span found.
    """
    ranges = _ranges(n for a, b in spans for n in range(a, b + 1))
    if not ranges:
        return {}
    args = ["blame", "--incremental", *flags]
    for a, b in ranges:
        args += ["-L", f"{a},{b}"]
    best: dict[int, tuple[int, str, int, str]] = {}  # span index -> (time, sha, line, path)
    times: dict[str, int] = {}
    proc = subprocess.Popen(repo._cmd(*args, rev, "--", path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=repo.env)
    assert proc.stdout is not None
    try:
        sha, first, count = "", 0, 0
        for raw in proc.stdout:
            head, _, rest = raw.rstrip(b"\n").partition(b" ")
            if len(head) == 40 and rest[:1].isdigit():
                sha = head.decode()
                _, final, num = rest.split(b" ")[:3]
                first, count = int(final), int(num)
            elif head == b"committer-time":
                times[sha] = int(rest)
            elif head == b"filename":
                when, name = times.get(sha, 0), unquote_path(rest)
                for i, (a, b) in enumerate(spans):
                    if first <= b and a <= first + count - 1 and (i not in best or (when, sha) > best[i][:2]):
                        best[i] = (when, sha, max(a, first), name)
                if len(best) == len(spans) and when < min(t for t, *_ in best.values()):
                    break  # every later commit is older: no span can change
    finally:
        proc.kill()
        proc.stdout.close()
        proc.wait()
    return {line: BlameLine(sha, name, when) for when, sha, line, name in best.values()}


def _blame(repo: GitRepo, parent: str, job: Job, flags: tuple[str, ...]) -> dict[int, BlameLine]:
    if job.lines:
        return blame_lines(repo, parent, job.path, job.lines, flags)
    return newest_in_spans(repo, parent, job.path, [(e.line_start, e.line_end) for e in job.functions], flags)


def finish_fix(res: FixResult, jobs: list[Job], blamed: list[dict[int, BlameLine]], index: EntityIndex) -> FixResult:
    found: dict[tuple[str, str | None], Candidate] = {}
    for job, lines in zip(jobs, blamed):
        if job.lines:
            for n, b in lines.items():
                entity = index.at(job.old, job.path, n)
                c = found.setdefault((b.sha, entity.id if entity else None),
                                     Candidate(b.sha, lake_path(b.path), b.committed_at, entity, 0, "blame"))
                c.lines += 1
        for e in job.functions:
            inside = [b for n, b in lines.items() if e.line_start <= n <= e.line_end]
            if inside:
                b = max(inside, key=lambda b: (b.committed_at, b.sha))
                found.setdefault((b.sha, e.id),
                                 Candidate(b.sha, lake_path(b.path), b.committed_at, e, 0, "function_history"))
    res.candidates = list(found.values())
    return res


def analyze_fixes(
    repo: GitRepo, repo_key: str, diffs: Iterable[CommitDiff], max_files: int = MAX_FILES,
    workers: int = WORKERS, affects: bool = True, flags: tuple[str, ...] = BLAME_FLAGS,
    cache: SpanCache | None = None, max_definitions: int = MAX_DEFINITIONS,
) -> Iterator[FixResult]:
    """SZZ candidates of each fix and, with `affects`, the entities it changed, in input order.

    `workers` threads run the `git blame` processes while this thread plans the next fixes;
    spans come from `cache` (the home's span cache) or are parsed from one `cat-file --batch`.
    """
    workers = max(1, workers)
    with repo.blobs() as blobs, ThreadPoolExecutor(max_workers=workers) as pool:
        index = EntityIndex(repo_key, SpanReader(blobs, cache if cache is not None else SpanCache(None)))
        window: deque[tuple[FixResult, list[Job], list[Future]]] = deque()
        for fix in diffs:
            res, jobs = plan_fix(fix, index, max_files, affects, max_definitions)
            parent = fix.parents[0] if fix.parents else ""
            window.append((res, jobs, [pool.submit(_blame, repo, parent, j, flags) for j in jobs]))
            while len(window) > 8 * workers:  # keep the pool busy, memory bounded
                res, jobs, futures = window.popleft()
                yield finish_fix(res, jobs, [f.result() for f in futures], index)
        while window:
            res, jobs, futures = window.popleft()
            yield finish_fix(res, jobs, [f.result() for f in futures], index)
