"""An experiment: SZZ without `git blame`, tracing lines back through the `-U0` hunks the history stage mined.

    .venv/bin/python bench/szz_hunks.py PATH HOME [--fixes N] [--ws] [--flags="-w -M"]

HOME holds PATH's history under the key `bench` (`bench/bugs_stage.py PATH --home HOME --stage
history`). For a sample of N non-merge fixes (all when N is 0), each line the fix deleted is
traced from the fix's parent back along first parents through `file_changes` (its added and
deleted ranges, renames followed, copies and additions end the trace) until a commit added it;
a merge that added the line (against its first parent) is looked through with one
`git diff -U0 M^2 M` when the line came from its second parent. This is blame without `-w` or
`-M`; `--ws` adds both roughly: a line in an added range goes on to the old line it equals
ignoring whitespace within the hunk, else to a block of 20+ alphanumeric characters it equals
anywhere in the old file. `--flags` are the blame flags compared with (default: the stage's).
Prints seconds for both (blame in one thread) and the agreement: the share of blamed lines with
the same commit, and of (fix, introducing commit) pairs that blame finds which the trace finds too.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import ltm.bugs.szz as szz
from ltm.bugs.diffs import commit_diffs
from ltm.extract.gitrepo import GitRepo
from ltm.lake import Lake
from bench.szz_sample import sample

KEY = "bench"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


def _starts(ranges: list[tuple[int, int]]) -> tuple[list[int], list[int], list[int]]:
    starts = [s for s, _ in ranges]
    ends = [s + n - 1 for s, n in ranges]
    before = [0]
    for _, n in ranges:
        before.append(before[-1] + n)
    return starts, ends, before


class Change:
    """One file change: old path, kind, and its ranges indexed for line mapping."""

    __slots__ = ("old_path", "kind", "added", "deleted", "old_blob", "new_blob")

    def __init__(self, old_path, kind, added, deleted, old_blob=None, new_blob=None):
        self.old_path, self.kind, self.old_blob, self.new_blob = old_path, kind, old_blob, new_blob
        self.added, self.deleted = _starts(added), _starts(deleted)

    def added_line(self, n: int) -> bool:
        starts, ends, _ = self.added
        i = bisect.bisect_right(starts, n) - 1
        return i >= 0 and n <= ends[i]

    def added_range(self, n: int) -> tuple[int, int]:
        starts, ends, _ = self.added
        i = bisect.bisect_right(starts, n) - 1
        return starts[i], ends[i]

    def old_line(self, n: int) -> int:
        """The old line number of new line `n` (not added): the k-th kept line of both sides."""
        starts, ends, before = self.added
        i = bisect.bisect_right(starts, n)  # ranges starting at or before n, all ending before it
        k = n - before[i]  # n is the k-th kept line of the new side
        dstarts, dends, dbefore = self.deleted
        lo, hi = k, k + dbefore[-1]  # the k-th old line not deleted: old = k + deleted lines before it
        while lo < hi:
            mid = (lo + hi) // 2
            j = bisect.bisect_right(dstarts, mid)
            dele = dbefore[j] - (max(0, dends[j - 1] - mid) if j else 0)
            if mid - dele >= k:
                hi = mid
            else:
                lo = mid + 1
        return lo


class Tracer:
    def __init__(self, repo: GitRepo, lake: Lake):
        self.repo = repo
        fc = lake.read("file_changes", KEY, columns=["sha", "path", "old_path", "change_kind", "added_ranges",
                                                     "deleted_ranges", "old_blob", "new_blob"]).to_pylist()
        self.changes: dict[tuple[str, str], Change] = {}
        for r in fc:
            self.changes[(r["sha"], r["path"])] = Change(
                r["old_path"], r["change_kind"], [(x["start"], x["count"]) for x in r["added_ranges"] or []],
                [(x["start"], x["count"]) for x in r["deleted_ranges"] or []], r["old_blob"], r["new_blob"])
        self.parents: dict[str, list[str]] = {}
        for line in repo.run("rev-list", "--parents", "HEAD").splitlines():
            sha, *ps = line.split()
            self.parents[sha] = ps
        self._merge_diffs: dict[tuple[str, str], Change | None] = {}
        self.ws = False  # look through whitespace-only changes (as blame -w)
        self.moves = False  # and lines moved within the file (as blame -M)
        self._blobs = None
        self._lines: dict[str, list[bytes]] = {}

    def _text(self, blob: str | None) -> list[bytes]:
        if blob is None:
            return []
        if blob not in self._lines:
            if len(self._lines) > 256:
                self._lines.clear()
            if self._blobs is None:
                self._blobs = self.repo.blobs().__enter__()
            self._lines[blob] = [b"".join(x.split()) for x in (self._blobs.read(blob) or b"").split(b"\n")]
        return self._lines[blob]

    def _through_ws(self, ch: Change, n: int) -> int | None:
        """The old line that new line `n` (in an added range) is, ignoring whitespace, or None."""
        if not self.ws or not ch.old_blob or not ch.new_blob:
            return None
        ns, ne = ch.added_range(n)
        a = ch.old_line(ns - 1) if ns > 1 else 0
        b = ch.old_line(ne + 1)
        old, new = self._text(ch.old_blob), self._text(ch.new_blob)
        olds, news = old[a:b - 1], new[ns - 1:ne]
        import difflib
        sm = difflib.SequenceMatcher(None, olds, news, autojunk=False)
        for i, j, size in sm.get_matching_blocks():
            if j <= n - ns < j + size:
                return a + 1 + i + (n - ns - j)
        if not self.moves:
            return None
        # As blame -M: the added block may be lines moved from elsewhere in the old file (20+ alnum chars).
        sm = difflib.SequenceMatcher(None, old, news, autojunk=False)
        for i, j, size in sm.get_matching_blocks():
            if j <= n - ns < j + size and sum(ch.isalnum() for x in news[j:j + size] for ch in x.decode("utf-8", "replace")) >= 20:
                return i + 1 + (n - ns - j)
        return None

    def _second(self, merge: str, path: str) -> Change | None:
        key = (merge, path)
        if key not in self._merge_diffs:
            p2 = self.parents[merge][1]
            out = subprocess.run(self.repo._cmd("diff", "-U0", "--no-color", "--no-ext-diff", p2, merge, "--", path),
                                 capture_output=True).stdout
            added, deleted = [], []
            for m in _HUNK.finditer(out):
                o, on, n, nn = int(m[1]), int(m[2] or 1), int(m[3]), int(m[4] or 1)
                if on:
                    deleted.append((o, on))
                if nn:
                    added.append((n, nn))
            exists = subprocess.run(self.repo._cmd("cat-file", "-e", f"{p2}:{path}"), capture_output=True).returncode == 0
            self._merge_diffs[key] = Change(path, "modified", added, deleted) if exists else None
        return self._merge_diffs[key]

    def trace(self, commit: str, path: str, lines: list[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        work = [(commit, path, {n: n for n in lines})]
        steps = 0
        while work:
            x, p, todo = work.pop()
            while todo:
                steps += 1
                if steps > 200_000:
                    return out
                ch = self.changes.get((x, p))
                ps = self.parents.get(x, [])
                if ch is not None:
                    if ch.kind in ("added", "copied"):
                        out.update({o: x for o in todo})
                        break
                    nxt = {}
                    for o, n in todo.items():
                        if ch.added_line(n) and (m := self._through_ws(ch, n)) is not None:
                            nxt[o] = m
                        elif ch.added_line(n):
                            second = self._second(x, p) if len(ps) > 1 else None
                            if second is not None and not second.added_line(n):
                                work.append((ps[1], p, {o: second.old_line(n)}))
                            else:
                                out[o] = x
                        else:
                            nxt[o] = ch.old_line(n)
                    todo, p = nxt, ch.old_path or p
                if not ps:
                    out.update({o: x for o in todo})
                    break
                x = ps[0]
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("home", type=Path)
    ap.add_argument("--fixes", type=int, default=0)
    ap.add_argument("--ws", action="store_true", help="look through whitespace-only changes (as blame -w)")
    ap.add_argument("--flags", default=" ".join(szz.BLAME_FLAGS), help="blame's flags to compare with")
    args = ap.parse_args()
    repo, lake = GitRepo(args.repo), Lake(args.home / "lake")
    diffs = sample(repo, lake, args.fixes or 10**9)
    jobs = []
    for d in diffs:
        for fd in d.files:
            lines = [n for h in fd.hunks for n, t in h.deleted if szz.is_blameable(t)]
            if fd.old_path and not fd.binary and lines:
                jobs.append((d.sha, d.parents[0], fd.old_path, lines))
    started = time.perf_counter()
    blamed = [szz.blame_lines(repo, parent, path, lines, tuple(args.flags.split())) for _, parent, path, lines in jobs]
    blame_s = time.perf_counter() - started
    started = time.perf_counter()
    tracer = Tracer(repo, lake)
    tracer.ws = tracer.moves = args.ws
    load_s = time.perf_counter() - started
    traced = [tracer.trace(parent, path, lines) for _, parent, path, lines in jobs]
    trace_s = time.perf_counter() - started
    same = total = 0
    want, got = set(), set()
    for (fix, *_), b, t in zip(jobs, blamed, traced):
        for n, bl in b.items():
            total += 1
            same += t.get(n) == bl.sha
        want |= {(fix, bl.sha) for bl in b.values()}
        got |= {(fix, s) for s in t.values()}
    print(json.dumps({"repo": str(args.repo), "fixes": len(diffs), "jobs": len(jobs), "blame_seconds_one_thread": round(blame_s, 1),
                      "trace_seconds": round(trace_s, 1), "trace_load_seconds": round(load_s, 1),
                      "merge_diffs": len(tracer._merge_diffs), "lines_same": round(same / max(1, total), 4),
                      "blamed_lines": total, "pairs_found": round(len(want & got) / max(1, len(want)), 4),
                      "pairs_extra": round(len(got - want) / max(1, len(got)), 4),
                      "loadavg": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
