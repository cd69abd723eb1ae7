"""Line origins of every commit, from one forward pass over the history: `git blame` for all fixes at once.

One `git log --reverse --topo-order -p -U0 -w -M` (merges diffed against their first parent) is
read as a stream. A commit's state maps each path to its lines, each an origin (the commit that
introduced the line and the path it had then) and the line's text without whitespace. A commit's
hunks are applied to its first parent's state: deleted lines leave, added lines get the commit as
origin, renames carry the lines to the new path. Unchanged files are shared between states; a
parent's dict passes to its last child and is copied for the others, and a state is dropped once
its children are done, so memory follows the open branches, not the history.

What `git blame -w -M` does, approximated where an exact copy would cost a diff per file:
- `-w`: the hunks are git's own whitespace-blind diff, the one blame makes (xdiff, myers).
- `-M`: an added run equal (whitespace aside) to a run anywhere in the parent's file, with 20+
  alphanumeric characters (blame's default score), keeps those lines' origins; each added line
  tries the first and the last parent line of its text and keeps the longer run.
- merges: lines unchanged against the first parent keep its origins; the merge's added lines take
  the second parent's origins where the same run is in its version of the file, else the merge's.

When the pass reaches a fix, its first parent's state answers the lines the fix deleted and, for an
add-only fix, the newest origin among its enclosing functions' lines, as `szz._blame` would.
Against blame (BENCHMARKS.md "#21 SZZ from one forward pass"): 98.4% of the (fix, introducing commit)
pairs over all fixes of requests and of sqlalchemy, 1.3-1.9% extra.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator

from ltm.bugs.diffs import CommitDiff, commit_diffs, default_path, file_header
from ltm.bugs.szz import MAX_DEFINITIONS, MAX_FILES, BlameLine, EntityIndex, FixResult, Job, finish_fix, plan_fix
from ltm.errors import RepositoryError
from ltm.extract.gitrepo import GitRepo, cannot_read_object, lake_path
from ltm.extract.history.spans import SpanCache
from ltm.extract.history.version_chains import SpanReader

MOVE_SCORE = 20  # alphanumeric characters a moved block needs (git blame's default)
_DIFF = ("-p", "-U0", "-w", "-M", "--diff-algorithm=myers", "--diff-merges=first-parent", "--no-color",
         "--no-ext-diff", "--no-textconv", "--format=%x00%H %ct %P")
log = logging.getLogger("ltm.bugs")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NOT_ALNUM = bytes(c for c in range(256) if c > 127 or not chr(c).isalnum())
_EMPTY: tuple[list, list] = ([], [])
Lines = tuple[list[int], list[bytes]]  # origin ids and whitespace-free texts, one of each per line


class _File:
    __slots__ = ("old", "new", "binary", "hunks")

    def __init__(self, path: str | None):
        self.old = self.new = path
        self.binary = False
        self.hunks: list[tuple[int, int, list[bytes]]] = []  # (first old index, old count, added texts)


class LineOrigins:
    """The forward pass over `rev`'s history; `run` hands out the states the fixes need."""

    def __init__(self, repo: GitRepo, rev: str = "HEAD"):
        self.repo, self.rev = repo, rev
        self.shas: list[str] = []
        self.times: list[int] = []
        self._origins: list[tuple[int, str]] = []  # origin id -> (commit index, path)
        self._ids: dict[tuple[int, str], int] = {}
        self.counts: Counter = Counter()
        self._children: Counter | None = None
        self._order: list[str] = []

    def topo_order(self) -> list[str]:
        """The commits in the order `run` reaches them (parents first), from one `git rev-list`."""
        order, self._children = [], Counter()
        for line in self.repo.run("rev-list", "--reverse", "--topo-order", "--parents", self.rev).splitlines():
            sha, *parents = line.split()
            order.append(sha)
            self._children.update(parents)
        self._order = order
        return order

    def origin(self, oid: int) -> BlameLine:
        """An origin id as blame's answer: the commit, the path the line had there, its committer time."""
        c, path = self._origins[oid]
        return BlameLine(self.shas[c], lake_path(path), self.times[c])  # as `blame_lines` names it

    def run(self, wanted: set[str]) -> Iterator[tuple[str, dict[str, Lines]]]:
        """(sha, its first parent's state) for each commit in `wanted`, in topological order: read the
        state before asking for the next one (it changes)."""
        if self._children is None:
            self.topo_order()
        children = self._children
        states: dict[str, dict[str, Lines]] = {}
        args = ["log", "--reverse", "--topo-order", *_DIFF, self.rev]
        stdin = None
        while True:
            done = len(self.shas)
            try:
                yield from self._read(self.repo.stream_lines(*args, stdin=stdin), states, children, wanted)
                return
            except RepositoryError as e:
                if not cannot_read_object(e):
                    raise
                if len(self.shas) == done and len(self.shas) < len(self._order):
                    # git died before it printed the first commit (rename detection reads both versions
                    # first): that commit goes without its changes, and its children still find its state
                    head = self.repo.run("log", "--no-walk", "--format=%H %ct %P", self._order[done]).split()
                    yield from self._commit(head, [], states, children, wanted)
                rest = self._order[len(self.shas):]
                if not rest:
                    return
                log.debug("line origins: git cannot read a version (%s); going on after %d commits", e, len(self.shas))
            # Git could not read a version a diff needs (a missing or corrupt object, a partial clone): the
            # commit it stopped in keeps the files read before it, and a new process goes on after it.
            self.counts["unreadable_commits"] += 1
            args = ["log", "--no-walk=unsorted", "--stdin", *_DIFF]
            stdin = "".join(s + "\n" for s in rest).encode()

    def _read(self, lines: Iterator[bytes], states: dict, children: Counter, wanted: set[str]):
        """Apply one `git log` stream's commits in order (see `run`); a commit cut short by git's failure is
        applied with the files read before it, then the failure is raised."""
        head: list[str] | None = None
        files: list[_File] = []
        f: _File | None = None
        added: list[bytes] | None = None
        try:
            for line in lines:
                c = line[:1]
                if added is not None and c in b"+-\\":
                    if c == b"+":
                        added.append(b"".join(line[1:].split()))
                    continue
                if c == b"\x00":
                    if head is not None:
                        yield from self._commit(head, files, states, children, wanted)
                    head, files, f, added = line[1:].decode().split(), [], None, None
                elif c == b"@" and f is not None:
                    m = _HUNK.match(line)
                    a, b = int(m[1]), int(m[2]) if m[2] is not None else 1  # type: ignore[index]
                    added = []
                    f.hunks.append((a - 1 if b else a, b, added))
                elif line.startswith(b"diff --git "):
                    f, added = _File(default_path(line)), None
                    files.append(f)
                elif f is None:
                    continue
                elif (header := file_header(line)) is not None:
                    if header[0] == "old":
                        f.old = header[1]
                    else:
                        f.new = header[1]
                elif line.startswith(b"Binary files "):
                    f.binary = True
        except RepositoryError:
            if head is not None:
                yield from self._commit(head, files, states, children, wanted)
            raise
        if head is not None:
            yield from self._commit(head, files, states, children, wanted)

    def _commit(self, head: list[str], files: list[_File], states: dict, children: Counter, wanted: set[str]):
        sha, ct, *parents = head
        ci = len(self.shas)
        self.shas.append(sha)
        self.times.append(int(ct))
        first = states.get(parents[0], {}) if parents else {}
        if sha in wanted:
            yield sha, first
        second = states.get(parents[1]) if len(parents) > 1 else None
        changed: dict[str | None, Lines | None] = {}
        for fd in files:
            if fd.old and fd.old != fd.new:
                changed.setdefault(fd.old, None)  # gone unless another file of this commit takes the path
            if fd.new is None:
                continue
            old = first.get(fd.old, _EMPTY) if fd.old else _EMPTY
            changed[fd.new] = ([], []) if fd.binary else self._apply(ci, fd, old, second) if fd.hunks else old
        if parents and children[parents[0]] == 1 and parents[0] in states:
            state = states.pop(parents[0])  # the last child takes the dict over
        else:
            state = dict(first)
        for p, lines in changed.items():
            if lines is None:
                state.pop(p, None)  # type: ignore[arg-type]
        state.update((p, lines) for p, lines in changed.items() if lines is not None)
        for p in parents:
            children[p] -= 1
            if children[p] <= 0:
                states.pop(p, None)
        if children[sha] > 0:
            states[sha] = state

    def _apply(self, ci: int, fd: _File, old: Lines, second: dict[str, Lines] | None) -> Lines:
        key = (ci, fd.new or "")
        oid = self._ids.setdefault(key, len(self._origins))
        if oid == len(self._origins):
            self._origins.append(key)
        old_oids, old_texts = old
        oids: list[int] = []
        texts: list[bytes] = []
        spans: list[tuple[int, int]] = []  # the added lines' index ranges in the new file
        pos = 0
        for start, count, added in fd.hunks:
            oids += old_oids[pos:start]
            texts += old_texts[pos:start]
            if added:
                spans.append((len(texts), len(texts) + len(added)))
                oids += [oid] * len(added)
                texts += added
            pos = max(pos, start + count)
        oids += old_oids[pos:]
        texts += old_texts[pos:]
        if not spans:
            return oids, texts
        if second is None:
            self._match(oids, texts, spans, old, MOVE_SCORE)
        elif (theirs := second.get(fd.new or "")) is not None:
            if theirs[1] == texts:  # the file as the second parent had it
                for a, b in spans:
                    oids[a:b] = theirs[0][a:b]
            else:
                self._match(oids, texts, spans, theirs, 0)
        return oids, texts

    def _match(self, oids: list[int], texts: list[bytes], spans: list[tuple[int, int]], src: Lines, score: int) -> None:
        """Added runs equal to runs of `src` with `score`+ alphanumeric characters take src's origins."""
        src_oids, src_texts = src
        n = len(src_texts)
        if not n:
            return
        last = dict(zip(src_texts, range(n)))  # one dict: the first of a text is found by a scan, when it is there
        for a, b in spans:
            i = a
            while i < b:
                best, at = 0, -1
                j2 = last.get(texts[i])
                if j2 is not None:
                    for j in (src_texts.index(texts[i]), j2):
                        k = 1
                        while i + k < b and j + k < n and src_texts[j + k] == texts[i + k]:
                            k += 1
                        if k > best:
                            best, at = k, j
                if best and (not score or sum(len(t.translate(None, _NOT_ALNUM)) for t in texts[i:i + best]) >= score):
                    oids[i:i + best] = src_oids[at:at + best]
                    self.counts["matched_lines"] += best
                    i += best
                else:
                    i += 1

    def answer(self, state: dict[str, Lines], job: Job) -> dict[int, BlameLine]:
        """What `szz._blame` gives for `job` at the parent whose state this is."""
        found = state.get(job.path)
        if found is None:
            return {}
        lines = found[0]
        if job.lines:
            return {n: self.origin(lines[n - 1]) for n in job.lines if 1 <= n <= len(lines)}
        out: dict[int, BlameLine] = {}
        for e in job.functions:
            a, b = max(e.line_start, 1) - 1, min(e.line_end, len(lines))
            if a < b:
                best = max(set(lines[a:b]),
                           key=lambda o: (self.times[self._origins[o][0]], self.shas[self._origins[o][0]]))
                out[lines.index(best, a, b) + 1] = self.origin(best)
        return out


def analyze_fixes_forward(
    repo: GitRepo, repo_key: str, shas: Iterable[str], rev: str, max_files: int = MAX_FILES,
    cache: SpanCache | None = None, max_definitions: int = MAX_DEFINITIONS,
) -> Iterator[FixResult]:
    """`szz.analyze_fixes` for many fixes at once, from one pass over `rev`'s history, in the pass's order.

    The fixes' diffs are read in that order too (one `commit_diffs` process beside the pass), and each
    fix is planned and answered when the pass reaches it: the file versions it needs are the entity
    memo's latest, as in `analyze_fixes`. A fix not in `rev`'s history is not yielded: blame it.
    """
    pass_ = LineOrigins(repo, rev)
    wanted = set(shas)
    ranked = [s for s in pass_.topo_order() if s in wanted]
    diffs = commit_diffs(repo, ranked)
    held: dict[str, CommitDiff] = {}
    with repo.blobs() as blobs:
        index = EntityIndex(repo_key, SpanReader(blobs, cache if cache is not None else SpanCache(None)))
        for sha, state in pass_.run(set(ranked)):
            while sha not in held:
                d = next(diffs)
                held[d.sha] = d
            res, jobs = plan_fix(held.pop(sha), index, max_files, True, max_definitions)
            yield finish_fix(res, jobs, [pass_.answer(state, j) for j in jobs], index) if jobs else res
