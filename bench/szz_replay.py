"""An experiment: blame for every fix at once, from ONE forward pass over the whole history.

    PYTHONPATH=. .venv/bin/python bench/szz_replay.py PATH HOME [--fixes N] [--no-moves] [--workers W]
        [--order replay,blame]

HOME holds PATH's history under the key `bench` (`bench/bugs_stage.py PATH --home HOME --stage
history`); its fixes are found as the bugs stage finds them (`find_fixes`) and planned by
`szz._plan` (the lines each fix deleted, or for an add-only fix its enclosing functions), on the
diffs the stage reads. With N, every k-th fix by sha (as `bench/szz_sample.py`), else all of them.

The pass: one `git log --reverse --topo-order -p -U0 -w -M --diff-merges=first-parent` over the
history, parsed as a stream. Each commit state maps a path to its lines, each line an
(origin, whitespace-free text) pair, origin naming the commit that introduced the line and the
path it had then. A commit's hunks are applied to its first parent's state (unchanged files
shared; a parent's dict handed on to its last child, copied for the others, dropped when its
children are done): deleted lines leave, added lines get the commit as origin, renames carry
the lines to the new path. As `blame -M` (approximately): an added run equal (ignoring
whitespace) to a run the same diff deleted from the same file, 20+ alphanumeric characters,
keeps the deleted lines' origins (`--no-moves` measures without). Merges as blame: lines
unchanged against parent 1 keep its origins; the merge's added lines take parent 2's origin where
they match parent 2's version of the file (difflib, whitespace-free), else the merge's own.
When the pass reaches a fix, its parent's state answers the fix's lines (and the newest origin
among an add-only fix's enclosing function) before the fix is applied.

Prints the pass's seconds and the blame path's (`szz._blame` on W threads, as the stage runs it)
in the same process, the order given by `--order`, the peak RSS before and after the pass, and
the agreement with blame: lines with the same commit, (fix, introducing commit) pairs that blame
finds which the pass finds too, the pass's extra pairs, and a sample of disagreeing lines.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import resource
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ltm.bugs.szz as szz
from ltm.bugs.diffs import _path, commit_diffs
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.spans import SpanCache
from ltm.extract.history.version_chains import SpanReader
from ltm.lake import Lake
from bench.szz_sample import fix_shas

KEY = "bench"
MOVE_SCORE = 20  # alphanumeric characters a moved block needs (git blame's default)
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NOT_ALNUM = bytes(c for c in range(256) if not chr(c).isalnum() or c > 127)


_EMPTY: tuple[list, list] = ([], [])


class _File:
    __slots__ = ("old", "new", "binary", "hunks")

    def __init__(self, old: str | None, new: str | None):
        self.old, self.new, self.binary = old, new, False
        self.hunks: list[tuple[int, int, list[bytes]]] = []  # (old index, old count, added texts)


class Replay:
    """Line origins of every commit state, forward over the history (see the module docstring)."""

    def __init__(self, repo: GitRepo, rev: str = "HEAD", moves: bool = True, copies: bool = False):
        self.repo, self.rev, self.moves, self.copies = repo, rev, moves, copies
        self.shas: list[str] = []
        self.times: list[int] = []
        self.origins: list[tuple[int, str]] = []  # origin id -> (commit index, path)
        self._origin_ids: dict[tuple[int, str], int] = {}
        self.counts: Counter = Counter()

    def origin(self, oid: int) -> szz.BlameLine:
        c, path = self.origins[oid]
        return szz.BlameLine(self.shas[c], path, self.times[c])

    def _oid(self, commit: int, path: str) -> int:
        key = (commit, path)
        oid = self._origin_ids.get(key)
        if oid is None:
            oid = self._origin_ids[key] = len(self.origins)
            self.origins.append(key)
        return oid

    def _children(self) -> Counter:
        out: Counter = Counter()
        for line in self.repo.run("rev-list", "--parents", self.rev).splitlines():
            for p in line.split()[1:]:
                out[p] += 1
        return out

    def run(self, wanted: set[str]):
        """Yield (sha, parent state) for each commit in `wanted`, before it is applied: use it at once."""
        children = self._children()
        states: dict[str, dict[str, list]] = {}
        cmd = self.repo._cmd("log", "--reverse", "--topo-order", "-p", "-U0", "-w", "-M", "--diff-merges=first-parent",
                             "--no-color", "--no-ext-diff", "--no-textconv", "--format=%x00%H %ct %P", self.rev)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.repo.env,
                                bufsize=1 << 20)
        assert proc.stdout is not None
        head: list[str] | None = None
        files: list[_File] = []
        f: _File | None = None
        added: list[bytes] | None = None
        try:
            for line in proc.stdout:
                c = line[:1]
                if added is not None:
                    if c == b"+":
                        added.append(b"".join(line[1:].split()))
                        continue
                    if c == b"-" or c == b"\\":
                        continue
                if c == b"\x00":
                    if head is not None:
                        yield from self._commit(head, files, states, children, wanted)
                    head, files, f, added = line[1:].decode().split(), [], None, None
                elif c == b"@":
                    m = _HUNK.match(line)
                    a, b = int(m[1]), int(m[2]) if m[2] is not None else 1
                    added = []
                    f.hunks.append((a - 1 if b else a, b, added))
                elif line.startswith(b"diff --git "):
                    added = None
                    rest = line[11:].rstrip(b"\n")
                    p = rest.split(b" b/", 1)[1].decode("utf-8", "surrogateescape") if not rest.startswith(b'"') and b" b/" in rest else None
                    f = _File(p, p)
                    files.append(f)
                elif f is None:
                    continue
                elif line.startswith(b"--- "):
                    f.old = _path(line[4:], b"a/")
                elif line.startswith(b"+++ "):
                    f.new = _path(line[4:], b"b/")
                elif line.startswith(b"rename from "):
                    f.old = _path(line[12:], b"")
                elif line.startswith(b"rename to "):
                    f.new = _path(line[10:], b"")
                elif line.startswith(b"new file mode"):
                    f.old = None
                elif line.startswith(b"deleted file mode"):
                    f.new = None
                elif line.startswith(b"Binary files "):
                    f.binary = True
            if head is not None:
                yield from self._commit(head, files, states, children, wanted)
        finally:
            proc.kill()
            proc.stdout.close()
            proc.wait()

    def _commit(self, head: list[str], files: list[_File], states: dict, children: Counter, wanted: set[str]):
        sha, ct, *parents = head
        ci = len(self.shas)
        self.shas.append(sha)
        self.times.append(int(ct))
        first = states.get(parents[0], {}) if parents else {}
        if sha in wanted:
            yield sha, first
        changed: dict[str, tuple | None] = {}
        for fd in files:
            old = first.get(fd.old, _EMPTY) if fd.old else _EMPTY
            if fd.new is None:
                changed.setdefault(fd.old, None)
                continue
            if fd.old and fd.old != fd.new:
                changed.setdefault(fd.old, None)
                self.counts["renames"] += 1
            if fd.binary:
                changed[fd.new] = ([], [])
                continue
            if not fd.hunks:
                changed[fd.new] = old
                continue
            changed[fd.new] = self._apply(ci, fd, old, states.get(parents[1]) if len(parents) > 1 else None)
        if parents and children[parents[0]] == 1 and parents[0] in states:
            state = states.pop(parents[0])  # the last child takes the dict over
        else:
            state = dict(first)
        for p, lines in changed.items():
            if lines is None:
                state.pop(p, None)
        for p, lines in changed.items():
            if lines is not None:
                state[p] = lines
        for p in parents:
            children[p] -= 1
            if children[p] <= 0:
                states.pop(p, None)
        if children[sha] > 0:
            states[sha] = state

    def _apply(self, ci: int, fd: _File, old: tuple[list, list], second: dict | None) -> tuple[list, list]:
        oid = self._oid(ci, fd.new)
        old_oids, old_texts = old
        oids: list = []
        texts: list = []
        pos = 0
        spans: list[tuple[int, int]] = []  # the added lines' index ranges in the new file
        for start, count, added in fd.hunks:
            if start > pos:
                oids += old_oids[pos:start]
                texts += old_texts[pos:start]
            if added:
                spans.append((len(texts), len(texts) + len(added)))
                oids += [oid] * len(added)
                texts += added
            pos = max(pos, start + count)
        oids += old_oids[pos:]
        texts += old_texts[pos:]
        if second is not None:
            theirs = second.get(fd.new)
            if theirs is not None and spans:
                self.counts["merge_files"] += 1
                if theirs[1] == texts:
                    for a, b in spans:
                        oids[a:b] = theirs[0][a:b]
                else:
                    self.counts["merge_files_matched"] += 1
                    self._match(oids, texts, spans, theirs[0], theirs[1], 0)
        elif self.moves and spans:
            if self.copies:  # as blame -M: a block from anywhere in the parent's file, deleted or kept
                self._match(oids, texts, spans, old_oids, old_texts, MOVE_SCORE)
            else:  # only blocks this diff deleted
                gone = [j for start, count, _ in fd.hunks for j in range(start, min(start + count, len(old_texts)))]
                self._match(oids, texts, spans, [old_oids[j] for j in gone], [old_texts[j] for j in gone], MOVE_SCORE)
        return oids, texts

    def _match(self, oids: list, texts: list, spans: list, src_oids: list, src_texts: list, score: int) -> None:
        """Added runs equal (whitespace aside) to runs of `src` with `score`+ alphanumerics take src's origins.

        Each added line tries the first and the last source line of its text and keeps the longer run.
        """
        if not src_texts:
            return
        n = len(src_texts)
        last = dict(zip(src_texts, range(n)))
        first = dict(zip(reversed(src_texts), range(n - 1, -1, -1)))
        for a, b in spans:
            i = a
            while i < b:
                t = texts[i]
                best, at = 0, -1
                j1 = first.get(t)
                if j1 is not None:
                    for j in (j1, last[t]):
                        k = 1
                        while i + k < b and j + k < n and src_texts[j + k] == texts[i + k]:
                            k += 1
                        if k > best:
                            best, at = k, j
                if best and (not score or sum(len(texts[i + k].translate(None, _NOT_ALNUM)) for k in range(best)) >= score):
                    oids[i:i + best] = src_oids[at:at + best]
                    self.counts["matched_lines"] += best
                    i += best
                else:
                    i += 1


def answer(replay: Replay, state: dict, job: szz._Job) -> dict[int, szz.BlameLine]:
    """What `szz._blame` returns for one job, from the parent's state."""
    found = state.get(job.path)
    if found is None:
        replay.counts["jobs_path_missing"] += 1
        return {}
    lines = found[0]
    if job.lines:
        return {n: replay.origin(lines[n - 1]) for n in job.lines if 1 <= n <= len(lines)}
    out = {}
    for e in job.functions:
        inside = [replay.origin(o) for o in set(lines[e.line_start - 1:e.line_end])]
        if inside:
            b = max(inside, key=lambda b: (b.committed_at, b.sha))
            out[max(e.line_start, 1)] = b
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("home", type=Path)
    ap.add_argument("--fixes", type=int, default=0, help="a sample of N fixes (0: all)")
    ap.add_argument("--no-moves", action="store_true", help="no approximation of blame -M")
    ap.add_argument("--copies", action="store_true", help="moved blocks from anywhere in the parent's file")
    ap.add_argument("--workers", type=int, default=szz.WORKERS)
    ap.add_argument("--order", default="replay,blame", help="which runs, in which order")
    ap.add_argument("--examples", type=int, default=30, help="disagreeing lines to print")
    args = ap.parse_args()
    repo, lake = GitRepo(args.repo), Lake(args.home / "lake")
    shas = fix_shas(lake)
    if args.fixes:
        shas = shas[:: max(1, len(shas) // args.fixes)][: args.fixes]
    started = time.perf_counter()
    cache = SpanCache(args.home / "cache" / "spans.sqlite")
    plans: dict[str, tuple[szz.FixResult, list[szz._Job]]] = {}
    with repo.blobs() as blobs:
        index = szz.EntityIndex(KEY, SpanReader(blobs, cache))
        for d in commit_diffs(repo, shas):
            plans[d.sha] = szz._plan(d, index, szz.MAX_FILES, False)
        plan_s = time.perf_counter() - started
        out: dict = {"repo": str(args.repo), "fixes": len(plans), "plan_seconds": round(plan_s, 1),
                     "jobs": sum(len(j) for _, j in plans.values()), "moves": not args.no_moves,
                     "copies": args.copies}
        results: dict[str, dict[str, list]] = {}
        for which in args.order.split(","):
            out[f"loadavg_before_{which}"] = round(os.getloadavg()[0], 2)
            out[f"rss_kib_before_{which}"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            started = time.perf_counter()
            if which == "replay":
                rp = Replay(repo, moves=not args.no_moves, copies=args.copies)
                got = {}
                for sha, state in rp.run({s for s, (_, jobs) in plans.items() if jobs}):
                    got[sha] = [answer(rp, state, j) for j in plans[sha][1]]
                out["replay_counts"] = dict(rp.counts)
                out["replay_commits"] = len(rp.shas)
            else:
                with ThreadPoolExecutor(max_workers=args.workers) as pool:
                    futures = {s: [pool.submit(szz._blame, repo, _parent(repo, s), j, szz.BLAME_FLAGS) for j in jobs]
                               for s, (_, jobs) in plans.items()}
                    got = {s: [f.result() for f in fs] for s, fs in futures.items()}
            out[f"{which}_seconds"] = round(time.perf_counter() - started, 1)
            out[f"rss_kib_after_{which}"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            results[which] = got
        cache.close()
        if "replay" in results and "blame" in results:
            out.update(compare(plans, results["blame"], results["replay"], index, args.examples))
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))


_PARENTS: dict[str, str] = {}


def _parent(repo: GitRepo, sha: str) -> str:
    if not _PARENTS:
        for line in repo.run("rev-list", "--parents", "HEAD").splitlines():
            s, *ps = line.split()
            _PARENTS[s] = ps[0] if ps else ""
    return _PARENTS.get(sha, "")


def compare(plans: dict, blamed: dict, replayed: dict, index: szz.EntityIndex, examples: int) -> dict:
    same = total = 0
    bad: list = []
    kinds: Counter = Counter()
    want: set = set()
    got: set = set()
    for sha, (res, jobs) in plans.items():
        b, r = blamed.get(sha, [{}] * len(jobs)), replayed.get(sha, [{}] * len(jobs))
        for job, bl, rl in zip(jobs, b, r):
            if not job.lines:
                continue
            for n, x in bl.items():
                total += 1
                y = rl.get(n)
                if y is not None and y.sha == x.sha:
                    same += 1
                elif len(bad) < examples:
                    bad.append((sha[:10], job.path, n, x.sha[:10], y.sha[:10] if y else None))
        fb = szz._finish(copy.copy(res), jobs, b, index)
        want |= {(sha, c.sha, c.method) for c in fb.candidates}
        fr = szz._finish(copy.copy(res), jobs, r, index)
        got |= {(sha, c.sha, c.method) for c in fr.candidates}
    pw, pg = {(a, b) for a, b, _ in want}, {(a, b) for a, b, _ in got}
    addw = {(a, b) for a, b, m in want if m == "function_history"}
    addg = {(a, b) for a, b, m in got if m == "function_history"}
    return {"blamed_lines": total, "lines_same": round(same / max(1, total), 4),
            "pairs_blame": len(pw), "pairs_replay": len(pg),
            "pairs_found": round(len(pw & pg) / max(1, len(pw)), 4),
            "pairs_extra": round(len(pg - pw) / max(1, len(pg)), 4),
            "add_only_pairs_found": round(len(addw & addg) / max(1, len(addw)), 4),
            "disagreeing_lines": bad}


if __name__ == "__main__":
    main()
