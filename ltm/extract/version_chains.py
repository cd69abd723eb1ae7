"""Parse many versions of the same files fast: each older version is reparsed from a newer one.

The history is read newest first, and a file change's `-U0` hunks say exactly which lines turn
the new blob back into the old one. tree-sitter can reparse incrementally: edit the new blob's
tree with those hunks and parse the old blob with it, which reuses every unchanged subtree. The
blobs of a chunk of commits form chains (a file's versions linked by its changes); a chain is
parsed in one process, the first version from scratch and the rest incrementally.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import accumulate

from tree_sitter import Parser, Tree

from ltm.extract.code_entities import MAX_FILE_BYTES
from ltm.extract.gitrepo import BlobReader
from ltm.extract.languages import LANGUAGES, LanguageSpec, ts_language
from ltm.extract.spans import Span, SpanCache, query_version, spans_from_tree, spans_of, spans_query

Hunk = tuple[int, int, int, int]  # old start, old count, new start, new count (as in `@@ -a,b +c,d @@`)


@dataclass
class Version:
    """One blob to parse: its bytes, and optionally the version it is reparsed from."""

    key: tuple[str, str]
    language: str
    src: bytes
    base: int = -1  # index of the newer version in the same job, or -1 to parse from scratch
    hunks: list[Hunk] = field(default_factory=list)  # old = this version, new = the base
    wanted: bool = True  # False: parsed only because a wanted version is reparsed from it


def _line_starts(src: bytes) -> list[int]:
    """Byte offset of the start of every line, plus the end of the text."""
    lines = src.split(b"\n")
    starts = [n + i for i, n in enumerate(accumulate(map(len, lines), initial=0))]
    starts[-1] = len(src)  # the last line has no newline after it
    return starts


def edit_to_old(tree: Tree, new_src: bytes, old_src: bytes, hunks: list[Hunk]) -> None:
    """Edit `tree` (of `new_src`) so it describes `old_src`, given the hunks from old to new."""
    new_at, old_at = _line_starts(new_src), _line_starts(old_src)
    # Later hunks first: the offsets of earlier ones are still those of the new text.
    for o_start, o_len, n_start, n_len in sorted(hunks, reverse=True):
        n_row = n_start if n_len == 0 else n_start - 1  # a pure deletion sits after line n_start
        o_row = o_start if o_len == 0 else o_start - 1
        n_row, o_row = min(n_row, len(new_at) - 1), min(o_row, len(old_at) - 1)
        n_end_row = min(n_row + n_len, len(new_at) - 1)
        o_end_row = min(o_row + o_len, len(old_at) - 1)
        start = new_at[n_row]
        old_end = new_at[n_end_row]
        new_end = start + (old_at[o_end_row] - old_at[o_row])
        tree.edit(
            start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
            start_point=(n_row, 0), old_end_point=(n_end_row, 0), new_end_point=(n_row + (o_end_row - o_row), 0),
        )


def parse_versions(versions: list[Version]) -> list[tuple[tuple[str, str], list]]:
    """Spans of every wanted version; each base precedes the versions reparsed from it."""
    children = [0] * len(versions)
    for v in versions:
        if v.base >= 0:
            children[v.base] += 1
    trees: dict[int, Tree] = {}
    parsers: dict[str, Parser] = {}
    out = []
    for i, v in enumerate(versions):
        parser = parsers.get(v.language) or parsers.setdefault(v.language, Parser(ts_language(v.language)))
        base = trees.get(v.base) if v.base >= 0 else None
        if base is not None:
            old = base.copy()
            edit_to_old(old, versions[v.base].src, v.src, v.hunks)
            tree = parser.parse(v.src, old_tree=old)
            children[v.base] -= 1
            if children[v.base] == 0:
                del trees[v.base]  # keep only the trees a later version still needs
        else:
            tree = parser.parse(v.src)
        if children[i]:
            trees[i] = tree
        if v.wanted:
            query, spec = spans_query(v.language), LANGUAGES[v.language]
            out.append((v.key, spans_from_tree(spec, v.src, tree, query) if query else spans_of(spec, v.src)))
    return out


Link = tuple[LanguageSpec, str | None, str | None, list[Hunk]]
"""One file change as the parser sees it: language, old blob, new blob, hunks (None: no such side)."""


class SpanReader:
    """Spans of blobs by id: the cache first; else read with `git cat-file --batch` and parsed.

    `prefetch` takes a chunk's file changes (newest first), reads every blob they need in one
    round trip and parses them as version chains, in a process pool when one is given; `spans`
    then answers from the cache.
    """

    def __init__(
        self, blobs: BlobReader, cache: SpanCache, max_file_bytes: int = MAX_FILE_BYTES,
        pool: ProcessPoolExecutor | None = None,
    ):
        self._blobs, self._cache, self._max, self._pool = blobs, cache, max_file_bytes, pool
        self.parsed = self.reparsed = self.bytes_parsed = self.skipped = 0

    @staticmethod
    def key(blob: str, spec: LanguageSpec) -> tuple[str, str]:
        return (blob, f"{spec.name}-{query_version(spec.name)}")

    def _parseable(self, src: bytes) -> bool:
        return len(src) <= self._max and b"\0" not in src[:8192]

    def prefetch(self, links: list[Link]) -> None:
        """Read and parse every blob the links need that is not cached, as chains of versions."""
        nodes: dict[tuple[str, str], list] = {}  # key -> [blob, spec, base key, hunks, wanted]
        for spec, old, new, hunks in links:
            kn = self.key(new, spec) if new else None
            if kn and kn not in nodes:
                nodes[kn] = [new, spec, None, [], self._cache.peek(kn) is False]
            if old:
                ko = self.key(old, spec)
                if ko not in nodes:
                    nodes[ko] = [old, spec, kn, hunks, self._cache.peek(ko) is False]
        needed = {k: n[4] for k, n in nodes.items()}
        for k in reversed(list(nodes)):  # a base is registered before what is derived from it
            if needed[k] and nodes[k][2] is not None:
                needed[nodes[k][2]] = True
        keys = [k for k in nodes if needed[k]]
        if not keys:
            return
        data = dict(self._blobs.read_many(list(dict.fromkeys(nodes[k][0] for k in keys))))
        jobs: dict[tuple[str, str], list[Version]] = {}
        where: dict[tuple[str, str], tuple[tuple[str, str], int]] = {}
        for k in keys:
            blob, spec, base, hunks, wanted = nodes[k]
            src = data[blob]
            if not self._parseable(src):
                self.skipped += 1
                self._cache.put(k, None)
                continue
            self.bytes_parsed += len(src)
            if base is not None and base in where:
                root, index = where[base]
                self.reparsed += 1
            else:
                root, index = k, -1
                self.parsed += 1
            job = jobs.setdefault(root, [])
            where[k] = (root, len(job))
            job.append(Version(k, spec.name, src, index, hunks, wanted))
        work = list(jobs.values())
        if self._pool is not None and len(work) > 1 and sum(len(j) for j in work) > 8:
            results = self._pool.map(parse_versions, work)
        else:
            results = map(parse_versions, work)
        for done in results:
            for k, spans in done:
                self._cache.put(k, spans)

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
