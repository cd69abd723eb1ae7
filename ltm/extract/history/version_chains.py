"""Parse many versions of the same files fast: each older version is reparsed from a newer one.

The history is read newest first, and a file change's `-U0` hunks say exactly which lines turn
the new blob back into the old one. tree-sitter can reparse incrementally: edit the new blob's
tree with those hunks and parse the old blob with it, which reuses every unchanged subtree. The
blobs of a chunk of commits form chains (a file's versions linked by its changes); a chain is
parsed in one process, the first version from scratch and the rest incrementally, their spans
derived from the newer version's (`span_shift`). A version no diff links to a newer one (a side
branch's, before the merge's first-parent diff) joins the chain of a newer version of its path,
with a one-hunk edit between the two texts.

A parser process reads the blobs it parses from a `git cat-file --batch` of its own, one at a
time: the main process sends only blob ids and hunks. So a chunk of commits costs memory for its
file changes, not for its sources, and chunks can be long: every chunk boundary restarts each
path's chain with a parse from scratch unless the process still holds the tree it ended with.
"""

from __future__ import annotations

from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import NamedTuple

from tree_sitter import Parser, Tree

from ltm.extract.filters import MAX_FILE_BYTES
from ltm.extract.gitrepo import BlobReader
from ltm.extract.languages import LANGUAGES, LanguageSpec, read_as, ts_language
from ltm.extract.history.parser_processes import ParserProcesses
from ltm.extract.history.span_shift import Hunk, derive, edit_to_old, hunk_edits, line_diff, line_starts
from ltm.extract.history.spans import (Located, Span, SpanCache, located_spans, needs_branches, query_version,
                                       spans_of, spans_query)


@dataclass
class Version:
    """One blob to parse: its id and size, and optionally the version it is reparsed from."""

    key: tuple[str, str]
    language: str
    blob: str
    size: int = 0
    base: int = -1  # index of the newer version in the same job, or -1 to parse from scratch
    hunks: list[Hunk] | None = field(default_factory=list)  # old = this version, new = the base; None: diff them
    wanted: bool = True  # False: parsed only because a wanted version is reparsed from it
    held: bool = False  # a chain's first version that the process may still hold from an earlier chunk (`_HELD`)


class Parsed(NamedTuple):
    """What `parse_versions` made of a job: spans per wanted version (None: not parseable), and counts."""

    spans: list[tuple[tuple[str, str], list[Span] | None]]
    derived: int  # versions whose query ran only where they differ from their base
    reused: int  # held trees used instead of a parse
    scratch: int  # parses from scratch
    reparsed: int  # incremental reparses
    skipped: int  # binary blobs, or blobs the repository could not give
    bytes: int  # source bytes parsed


HOLD_BYTES = 4 << 20
"""Source bytes of chain ends a parser process keeps for the next chunk (their trees take about 20 times that)."""

# Chain ends of earlier jobs in this process, oldest first: key -> (tree, source, spans, line starts).
# The next chunk's chain of a path starts where this one ended (the same blob), so holding it saves
# a parse from scratch; a key that was let go is simply read and parsed again.
_HELD: OrderedDict[tuple[str, str], tuple[Tree, bytes, list[Located], list[int] | None]] = OrderedDict()
_held_bytes = 0

Opener = tuple[list[str], "dict[str, str] | None"]
"""How a parser process opens its own `git cat-file --batch` on the repository (`BlobReader.opener`)."""

_READER: tuple[Opener, BlobReader] | None = None  # this process's reader, for the repository last asked


DELTA_CACHE = "32m"
"""git's delta base cache in each parser process's `cat-file` (git's default is 96m): the same speed on
sqlalchemy's history, about 65 MiB less memory per parser process (BENCHMARKS.md, lead session 18)."""


def _reader(opener: Opener) -> BlobReader:
    """This process's blob reader for the repository `opener` names: started once, kept for later jobs."""
    global _READER
    if _READER is None or _READER[0] != opener:
        if _READER is not None:
            _READER[1].close()
        cmd, env = opener
        _READER = (opener, BlobReader([cmd[0], "-c", f"core.deltaBaseCacheLimit={DELTA_CACHE}", *cmd[1:]], env))
    return _READER[1]


def _hold(key: tuple[str, str], tree: Tree, src: bytes, loc: list[Located], starts: list[int] | None) -> None:
    global _held_bytes
    if key in _HELD:
        _HELD.move_to_end(key)
        return
    _HELD[key] = (tree, src, loc, starts)
    _held_bytes += len(src)
    while _held_bytes > HOLD_BYTES and _HELD:
        _held_bytes -= len(_HELD.popitem(last=False)[1][1])


def forget() -> None:
    """Let go of every held tree (the end of a mining run)."""
    global _held_bytes
    _HELD.clear()
    _held_bytes = 0


def _binary(src: bytes) -> bool:
    return b"\0" in src[:8192]


def parse_versions(versions: list[Version], blobs: BlobReader | Opener) -> Parsed:
    """Spans of every wanted version (each base precedes the versions reparsed from it).

    The blobs are read here, one at a time as they are parsed (one `cat-file` round trip for the
    job), from `blobs` or, in a parser process, from the process's own reader that `blobs` opens:
    no chunk's sources wait in memory for their turn. A version whose blob is binary or missing
    gets None, and what was to be reparsed from it is parsed from scratch. Every chain end stays
    held in this process for the next chunk (`_HELD`).
    """
    reader = blobs if isinstance(blobs, BlobReader) else _reader(blobs)
    children = [0] * len(versions)
    for v in versions:
        if v.base >= 0:
            children[v.base] += 1
    # Held trees are taken now: holding the job's own chain ends may let them go before their turn.
    pinned = {i: _HELD[v.key] for i, v in enumerate(versions)
              if v.held and v.key in _HELD and spans_query(v.language) is not None}
    reads = reader.read_many([v.blob for i, v in enumerate(versions) if i not in pinned])
    trees: dict[int, Tree] = {}
    sources: dict[int, bytes] = {}  # of the versions that are bases
    located: dict[int, list[Located]] = {}
    starts: dict[int, list[int]] = {}  # line starts of the versions that are bases, computed once
    parsers: dict[str, Parser] = {}
    read_in: dict[int, str] = {}  # the language each version was parsed in (a C header may be C++)
    out: list[tuple[tuple[str, str], list[Span] | None]] = []
    derived = reused = scratch = reparsed = skipped = nbytes = 0
    try:
        for i, v in enumerate(versions):
            held = pinned.get(i)
            if held is not None:
                src = held[1]
            else:
                src = next(reads)[1]
                if src is None or _binary(src):
                    skipped += 1
                    if v.wanted:
                        out.append((v.key, None))
                    continue  # what is reparsed from it finds no base tree: parsed from scratch
                nbytes += len(src)
            spec = read_as(LANGUAGES[v.language], src)
            read_in[i] = spec.name
            parser = parsers.get(spec.name) or parsers.setdefault(spec.name, Parser(ts_language(spec.name)))
            query = spans_query(spec.name)
            base = trees.get(v.base) if v.base >= 0 and read_in.get(v.base) == spec.name else None
            loc: list[Located] | None = None
            if held is not None:  # the tree an earlier job of this process ended its chain with
                if v.key in _HELD:
                    _HELD.move_to_end(v.key)
                reused += 1
                tree, _, loc, st = held
                if st is not None:
                    starts[i] = st
            elif base is not None:
                old = base.copy()
                base_src = sources[v.base]
                mine = starts[i] = line_starts(src)
                # No hunks for texts that differ: git gave no line ranges (the commit it failed to read, in a
                # repository with missing objects), so the two texts are diffed here.
                hunks = v.hunks if v.hunks or base_src == src else None
                edits = hunk_edits(base_src, src, line_diff(base_src, src) if hunks is None else hunks,
                                   starts.get(v.base), mine)
                edit_to_old(old, edits)
                tree = parser.parse(spec.parser_text(src), old_tree=old)
                reparsed += 1
                if query is not None and (v.wanted or children[i]) and v.base in located:
                    changed = [(r.start_byte, r.end_byte) for r in old.changed_ranges(tree)]
                    try:
                        loc = derive(src, tree, query, located[v.base], edits, changed, base)
                    except ValueError:  # ranges that do not fit the text: the full query below is always right
                        loc = None
                    derived += loc is not None
                children[v.base] -= 1
                if children[v.base] == 0:  # keep only the trees and spans a later version still needs
                    del trees[v.base]
                    del sources[v.base]
                    located.pop(v.base, None)
                    starts.pop(v.base, None)
            else:
                tree = parser.parse(spec.parser_text(src))
                scratch += 1
                if children[i]:
                    starts[i] = line_starts(src)
            if not children[i]:
                starts.pop(i, None)
            if loc is not None and needs_branches(spec, src, tree):
                loc = None  # shifted from the base's spans, which may have been read another way
            if loc is None and query is not None and (v.wanted or children[i]):
                loc = located_spans(spec, src, tree, query)
            if children[i]:
                trees[i] = tree
                sources[i] = src
                if loc is not None:
                    located[i] = loc
            elif loc is not None:  # a chain end: the next chunk's chain of the path may start here
                _hold(v.key, tree, src, loc, mine if base is not None and held is None else None)
            if v.wanted:
                out.append((v.key, [x.span for x in loc] if loc is not None else spans_of(spec, src)))
    finally:
        for _ in reads:  # an error half way: leave the reader's pipe ready for the next job
            pass
    return Parsed(out, derived, reused, scratch, reparsed, skipped, nbytes)


Link = tuple[LanguageSpec, str | None, str | None, list[Hunk], str | None, str | None]
"""One file change as the parser sees it: language, old blob, new blob, hunks, old path, new path
(None: no such side)."""


class SpanReader:
    """Spans of blobs by id: the cache first; else read with `git cat-file --batch` and parsed.

    `submit` takes a chunk's file changes (newest first), sizes every blob they need in one
    round trip (`cat-file --batch-check`) and starts parsing them as version chains, in parser
    processes when they are given (`ParserProcesses`, largest chains first), each of which reads
    the bytes itself as it parses them, so no blob waits in memory; `collect` waits for them and
    fills the cache; `spans` then answers from it. Between the two the caller can work on the
    previous chunk. A chain that starts where an earlier chunk's chain of the path ended goes to
    the process that holds that version's tree, so it is not parsed from scratch again.
    """

    def __init__(
        self, blobs: BlobReader, cache: SpanCache, max_file_bytes: int = MAX_FILE_BYTES,
        procs: ParserProcesses | None = None,
    ):
        self._blobs, self._cache, self._max, self._procs = blobs, cache, max_file_bytes, procs
        self.parsed = self.reparsed = self.bytes_parsed = self.skipped = self.derived = self.missing = 0
        self._flight: set[tuple[str, str]] = set()  # submitted, not collected yet
        self._held: dict[tuple[str, str], int] = {}  # chain end -> the process that may hold it (-1: this one)

    @staticmethod
    def key(blob: str, spec: LanguageSpec) -> tuple[str, str]:
        return (blob, f"{spec.name}-{query_version(spec.name)}")

    def _parseable(self, src: bytes | None) -> bool:
        if src is None:  # the repository cannot give this version: no spans for it, counted
            self.missing += 1
            return False
        return len(src) <= self._max and not _binary(src)

    def _missing(self, k: tuple[str, str]) -> bool:
        return k not in self._flight and self._cache.peek(k) is False

    def prefetch(self, links: list[Link]) -> None:
        """Read and parse every blob the links need that is not cached, as chains of versions."""
        self.collect(self.submit(links))

    def submit(self, links: list[Link]) -> list:
        """Start parsing every blob the links need that is neither cached nor submitted already."""
        nodes: dict[tuple[str, str], list] = {}  # key -> [blob, spec, base key, hunks, wanted]
        last: dict[str, tuple[str, str]] = {}  # path -> the oldest version of it registered so far
        sibling: dict[tuple[str, str], tuple[str, str]] = {}  # a chain's first version -> a newer one of its path
        for spec, old, new, hunks, old_path, new_path in links:
            kn = self.key(new, spec) if new else None
            if kn and kn not in nodes:
                nodes[kn] = [new, spec, None, [], self._missing(kn)]
                if new_path in last:
                    sibling[kn] = last[new_path]
            if kn and new_path:
                last[new_path] = kn
            if old:
                ko = self.key(old, spec)
                if ko not in nodes:
                    nodes[ko] = [old, spec, kn, hunks, self._missing(ko)]
                    if kn is None and old_path in last:
                        sibling[ko] = last[old_path]
                if old_path:
                    last[old_path] = ko
        needed = {k: n[4] for k, n in nodes.items()}
        for k in reversed(list(nodes)):  # a base is registered before what is derived from it
            if needed[k] and nodes[k][2] is not None:
                needed[nodes[k][2]] = True
        # A side branch's version has no diff to a newer one: reparse it from a newer version of its
        # path that is parsed anyway (`line_diff` makes the edit) instead of from scratch.
        for k, s in sibling.items():
            if needed[k] and needed[s] and nodes[k][2] is None:
                nodes[k][2:4] = [s, None]
        keys = [k for k in nodes if needed[k]]
        if not keys:
            return []
        sizes = self._blobs.sizes(list(dict.fromkeys(nodes[k][0] for k in keys)))  # the parsers read the bytes
        jobs: dict[tuple[str, str], list[Version]] = {}
        where: dict[tuple[str, str], tuple[tuple[str, str], int]] = {}
        for k in keys:
            blob, spec, base, hunks, wanted = nodes[k]
            size = sizes[blob]
            if size is None or size > self._max:  # missing from the repository, or too large: no spans, counted
                self.missing += size is None
                self.skipped += 1
                self._cache.put(k, None)
                continue
            if base is not None and base in where:
                root, index = where[base]
            else:
                root, index = k, -1
            job = jobs.setdefault(root, [])
            where[k] = (root, len(job))
            job.append(Version(k, spec.name, blob, size, index, hunks, wanted, held=index < 0 and k in self._held))
        work = list(jobs.values())
        self._flight.update(v.key for job in work for v in job if v.wanted)
        if self._procs and len(work) > 1 and sum(len(j) for j in work) > 8:
            return self._dispatch(work)
        for job in work:
            self._ends(job, -1)
        return [parse_versions(job, self._blobs) for job in work]

    def _ends(self, job: list[Version], worker: int) -> None:
        """Remember which process will hold the chain ends of `job` (the versions nothing is reparsed from)."""
        bases = {v.base for v in job}
        for i, v in enumerate(job):
            if i not in bases:
                self._held.pop(v.key, None)
                self._held[v.key] = worker
        while len(self._held) > 1 << 16:
            del self._held[next(iter(self._held))]

    def _dispatch(self, work: list[list[Version]]) -> list[Future]:
        """Each job to a parser process: a chain that starts at a held tree to the process holding it
        unless that would give the process more than its share of the queued work; the others
        (largest first) to the least loaded process."""
        assert self._procs
        size = {id(job): sum(v.size for v in job) for job in work}
        loads = self._procs.loads()
        share = (sum(loads) + sum(size.values())) / len(loads)
        order: list[tuple[list[Version], int]] = []
        rest = []
        for job in sorted(work, key=lambda job: -size[id(job)]):
            w = self._held.get(job[0].key, -1) if job[0].held else -1
            if w < 0 or loads[w] + size[id(job)] > share:
                rest.append(job)
                continue
            loads[w] += size[id(job)]
            order.append((job, w))
        for job in rest:
            w = min(range(len(loads)), key=loads.__getitem__)
            loads[w] += size[id(job)]
            order.append((job, w))
        out = []
        opener = self._blobs.opener()
        for job, w in order:
            self._ends(job, w)
            out.append(self._procs.send(w, size[id(job)], parse_versions, job, opener))
        return out

    def collect(self, handles: list) -> None:
        """Wait for what `submit` started and put the spans into the cache."""
        for h in handles:
            got: Parsed = h.result() if isinstance(h, Future) else h
            self.derived += got.derived
            self.parsed += got.scratch
            self.reparsed += got.reparsed
            self.skipped += got.skipped
            self.bytes_parsed += got.bytes
            for k, spans in got.spans:
                self._cache.put(k, spans)
                self._flight.discard(k)

    def spans(self, blob: str, spec: LanguageSpec) -> list[Span] | None:
        """The blob's spans; None for a binary or oversized blob (counted in `skipped`)."""
        k = self.key(blob, spec)
        got = self._cache.get(k)
        if got is not False:
            return got  # type: ignore[return-value]
        src = self._blobs.read(blob)
        result = None
        if self._parseable(src):
            result = spans_of(spec, src)
            self.parsed += 1
            self.bytes_parsed += len(src)
        else:
            self.skipped += 1
        self._cache.put(k, result)
        return result
