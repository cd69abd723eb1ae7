"""SZZ: the commits that introduced the lines a fix changed, with the function they sat in.

For each fix commit (merges and very large commits skipped), the deleted and changed lines of
every file are blamed at the fix's parent with ONE `git blame --porcelain -w -M -C` per file and
one `-L a,b` per run of lines (never a process per line). Blank and comment lines are ignored;
`-w` ignores whitespace and `-M -C` follow lines moved within and across files. Candidates
committed after the bug's report date are dropped. A fix that only adds lines falls back to the
last earlier commit that touched the enclosing function: the newest commit among the blame of
that function's lines at the parent.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import datetime

from ltm import ids
from ltm.bugs.diffs import CommitDiff, FileDiff
from ltm.extract.code_entities import parse_definitions
from ltm.extract.gitrepo import BlobReader, GitRepo
from ltm.extract.languages import language_for

MAX_FILES = 100
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
    lines: int
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


def blame_lines(repo: GitRepo, rev: str, path: str, lines: list[int]) -> dict[int, BlameLine]:
    """Who last changed each of `lines` of `path` at `rev`: one porcelain blame with -L ranges."""
    if not lines:
        return {}
    args = ["blame", "--porcelain", "-w", "-M", "-C"]
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


class EntityIndex:
    """Function and class spans of file versions (`rev:path`), parsed once each."""

    def __init__(self, repo_key: str, blobs: BlobReader):
        self._repo_key, self._blobs = repo_key, blobs
        self._cache: dict[tuple[str, str], list[Entity]] = {}
        self._text: dict[tuple[str, str], list[str]] = {}

    def entities(self, rev: str, path: str) -> list[Entity]:
        key = (rev, path)
        if key not in self._cache:
            spec = language_for(path)
            found: list[Entity] = []
            if spec is not None:
                try:
                    src = self._blobs.read(f"{rev}:{path}")
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

    def source(self, rev: str, path: str) -> list[str]:
        """The lines of `path` at `rev` (empty when git cannot show it)."""
        key = ("src:" + rev, path)
        if key not in self._text:
            try:
                self._text[key] = self._blobs.read(f"{rev}:{path}").decode("utf-8", errors="replace").split("\n")
            except Exception:  # noqa: BLE001
                self._text[key] = []
        return self._text[key]

    def at(self, rev: str, path: str, line: int) -> Entity | None:
        """The innermost function or class of `path` at `rev` that spans `line`."""
        best = None
        for e in self.entities(rev, path):
            if e.line_start <= line <= e.line_end and (best is None or e.line_start >= best.line_start):
                best = e
        return best


def _affected(fd: FileDiff, fix: CommitDiff, index: EntityIndex, out: dict[str, Entity]) -> None:
    parent = fix.parents[0] if fix.parents else None
    for h in fd.hunks:
        if fd.old_path and parent:
            for n, _ in h.deleted:
                if e := index.at(parent, fd.old_path, n):
                    out[e.id] = e
        if fd.new_path:
            for n, _ in h.added:
                if e := index.at(fix.sha, fd.new_path, n):
                    out[e.id] = e


def analyze_fix(
    repo: GitRepo, fix: CommitDiff, index: EntityIndex, report_date: datetime | None = None,
    max_files: int = MAX_FILES,
) -> FixResult:
    """Affected entities and SZZ candidates of one fix commit."""
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
        if not fd.binary:
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

    deleted = {fd.old_path: [n for h in fd.hunks for n, t in h.deleted if is_blameable(t)]
               for fd in fix.files if fd.old_path and not fd.binary}
    if any(deleted.values()):
        for path, lines in deleted.items():
            for n, b in blame_lines(repo, parent, path, lines).items():
                if keep(b):
                    add(b, index.at(parent, path, n), "blame")
    else:
        for fd in fix.files:  # add-only fix: the enclosing function's last change before the fix
            if fd.binary or not fd.old_path:
                continue
            path = fd.old_path
            enclosing = {e for h in fd.hunks
                         if (e := index.at(parent, path, h.old_start) or index.at(parent, path, h.old_start + 1))}
            src = index.source(parent, path)
            body = sorted({n for e in enclosing for n in range(e.line_start, min(e.line_end, len(src)) + 1)
                           if is_blameable(src[n - 1])})
            found = blame_lines(repo, parent, path, body)
            for e in enclosing:
                mine = [b for n, b in found.items() if e.line_start <= n <= e.line_end and keep(b)]
                if mine:
                    top = max(mine, key=lambda b: b.committed_at)
                    add(top, e, "function_history", sum(b.sha == top.sha for b in mine))
    res.candidates = list(blamed.values())
    return res
