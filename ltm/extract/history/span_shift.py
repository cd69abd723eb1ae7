"""Spans of an older version from a newer one's: the query runs only where the two differ.

A file changes a little per commit, yet a query over its whole tree costs as much as its parse.
When an older version is reparsed from a newer one (see `version_chains`), tree-sitter tells
which byte ranges changed structure (`Tree.changed_ranges`) and the `-U0` hunks tell which text
changed. Together they are the dirty ranges R of the older version. Then:

- a definition that touches R is found by running the query over R only (a match that
  intersects a range comes back whole, with the enclosing definitions that name it);
- a definition clear of R is the newer version's definition, moved by the hunks before it:
  same text (so same name and body hash), lines shifted.

Its name can still differ, as its ancestors can. tree-sitter's changed ranges leave out a subtree
it reused under a new parent: a class header inserted above a method moves the method into that
class (or an `impl` header into that impl) while the method's text and structure stay the same.
So a kept definition must have the same innermost changed definition or scope around it in both
versions, and no enclosing definition or scope may have its own captures (name, owner, type) in
R. Otherwise the whole version is queried instead (`None`). tests/extract/history/test_span_shift.py
holds the result equal to a fresh parse, version by version.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import cache

import numpy as np
from tree_sitter import Query, Tree

from ltm.extract.history.spans import Located, Matches, Span, collect, locate, named_apart

Hunk = tuple[int, int, int, int]  # old start, old count, new start, new count (as in `@@ -a,b +c,d @@`)
Edit = tuple[int, int, int, int, int, int, int, int]
"""A hunk in both versions: bytes (new start, new end, old start, old end), then rows in the same order."""


def line_starts(src: bytes) -> list[int]:
    """Byte offset of the start of every line (as `split(b"\\n")` cuts them), plus the end of the text."""
    newlines = np.flatnonzero(np.frombuffer(src, dtype=np.uint8) == 10) + 1
    return [0, *newlines.tolist(), len(src)]


def hunk_edits(
    new_src: bytes, old_src: bytes, hunks: list[Hunk], new_at: list[int] | None = None, old_at: list[int] | None = None
) -> list[Edit]:
    """The hunks as byte and row ranges of both versions, in file order (`*_at`: their `line_starts`, if known)."""
    new_at = line_starts(new_src) if new_at is None else new_at
    old_at = line_starts(old_src) if old_at is None else old_at
    out = []
    for o_start, o_len, n_start, n_len in sorted(hunks, key=lambda h: h[2]):
        n_row = n_start if n_len == 0 else n_start - 1  # a pure deletion sits after line n_start
        o_row = o_start if o_len == 0 else o_start - 1
        n_row, o_row = min(n_row, len(new_at) - 1), min(o_row, len(old_at) - 1)
        n_end_row = min(n_row + n_len, len(new_at) - 1)
        o_end_row = min(o_row + o_len, len(old_at) - 1)
        out.append((new_at[n_row], new_at[n_end_row], old_at[o_row], old_at[o_end_row], n_row, n_end_row, o_row,
                    o_end_row))
    return out


def line_diff(new_src: bytes, old_src: bytes) -> list[Hunk]:
    """One hunk from the first to the last differing line: an exact (if coarse) edit between any two texts.

    Used where git gave no diff between two versions of a file (a side branch's version and the
    merge that follows it), so the older one can still be reparsed from the newer one's tree.
    """
    a, b = old_src.split(b"\n"), new_src.split(b"\n")
    most = min(len(a), len(b))
    pre = 0
    while pre < most and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < most - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    o_len, n_len = len(a) - pre - suf, len(b) - pre - suf
    return [(pre + (o_len > 0), o_len, pre + (n_len > 0), n_len)]


def edit_to_old(tree: Tree, edits: list[Edit]) -> None:
    """Edit `tree` (of the newer text) so it describes the older one."""
    # Later hunks first: the offsets of earlier ones are still those of the newer text.
    for n_start, n_end, o_start, o_end, n_row, n_end_row, o_row, o_end_row in reversed(edits):
        tree.edit(
            start_byte=n_start, old_end_byte=n_end, new_end_byte=n_start + (o_end - o_start),
            start_point=(n_row, 0), old_end_point=(n_end_row, 0), new_end_point=(n_row + (o_end_row - o_row), 0),
        )


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _touches(ranges: list[tuple[int, int]], starts: list[int], a: int, b: int) -> bool:
    """True when [a, b] meets one of the merged, sorted `ranges` (touching counts)."""
    i = bisect_right(starts, b) - 1
    return i >= 0 and ranges[i][1] >= a


def derive(
    src: bytes, tree: Tree, query: Query, base: list[Located], edits: list[Edit], changed: list[tuple[int, int]],
    base_tree: Tree | None = None,
) -> list[Located] | None:
    """The located spans of `src` (the older version), or None when a full query is needed.

    `base_tree` (the newer version's tree) is needed where the language has naming scopes (a Rust
    `impl`, a Ruby `module`): the scopes the hunks touch there are found with a query over them.
    """
    dirty = _merge([(e[2], e[3]) for e in edits] + changed)
    starts = [a for a, _ in dirty]
    m = collect(query, tree.root_node, _widen(dirty, len(src)))
    touched = [loc for loc in locate(src, m) if _touches(dirty, starts, loc.start_byte, loc.end_byte)]
    # Definitions clear of every hunk (in the newer text) and of R (in the older one) move as they are.
    n_starts = [e[0] for e in edits]
    kept: list[Located] = []
    keys: list[tuple[int, int]] = []
    was_start: list[int] = []  # each kept definition's bytes in the newer version
    was_end: list[int] = []
    changed_there: list[Holder] = []  # the newer version's definitions that changed
    for loc in base:
        i = bisect_right(n_starts, loc.end_byte) - 1  # the last hunk that starts at or before the end
        shift = 0 if i < 0 else edits[i][3] - edits[i][1]
        a, b = loc.start_byte + shift, loc.end_byte + shift
        if (i >= 0 and edits[i][1] >= loc.start_byte) or _touches(dirty, starts, a, b):
            changed_there.append((loc.start_byte, loc.end_byte, loc.span.qualified_name))
            continue
        rows = 0 if i < 0 else edits[i][7] - edits[i][5]
        sp = loc.span
        if rows:
            sp = Span(sp.kind, sp.name, sp.qualified_name, sp.line_start + rows, sp.line_end + rows, sp.body_hash)
        kept.append(Located(sp, a, b, loc.singleton))
        keys.append((a, -b))
        was_start.append(loc.start_byte)
        was_end.append(loc.end_byte)
    if kept:
        for h_start, h_end, others in m.holders.values():
            if any(_touches(dirty, starts, a, b) for a, b in others):
                j = bisect_left(keys, (h_start, -h_end))
                if j < len(kept) and kept[j].end_byte <= h_end:
                    return None  # an enclosing name changed: untouched definitions may be renamed
        # tree-sitter's changed ranges leave out a subtree it reused under a new parent: a class
        # header inserted above a method moves the method into that class while the method's own
        # text and structure stay the same. So the innermost changed definition or scope around
        # each kept definition must be the same one in both versions.
        here = [(loc.start_byte, loc.end_byte, loc.span.qualified_name) for loc in touched]
        here += _scopes(m, dirty)
        if base_tree is not None and scoped(query):
            hunks = _merge([(e[0], e[1]) for e in edits])
            changed_there += _scopes(collect(query, base_tree.root_node, _widen(hunks, base_tree.root_node.end_byte)),
                                     hunks)
        now = _innermost(here, [a for a, _ in keys], [loc.end_byte for loc in kept])
        if now != _innermost(changed_there, was_start, was_end):
            return None
    for loc in touched:  # few: insert them in order
        j = bisect_left(keys, (loc.start_byte, -loc.end_byte))
        keys.insert(j, (loc.start_byte, -loc.end_byte))
        kept.insert(j, loc)
    return named_apart(kept)  # `def self.m` added or removed elsewhere renames a kept `def m` (`Foo#m`)


Holder = tuple[int, int, str]
"""A definition or naming scope: its bytes and its name."""


def _widen(ranges: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """`ranges` one byte wider on each side (within the text's `size`), merged."""
    return _merge([(max(a - 1, 0), min(b + 1, size)) for a, b in ranges])


@cache
def scoped(query: Query) -> bool:
    """True when the language's query has naming scopes besides definitions (`@scope`, `@impl`)."""
    return any(query.capture_name(i) in ("scope", "impl") for i in range(query.capture_count))


def _scopes(m: Matches, ranges: list[tuple[int, int]]) -> list[Holder]:
    """The naming scopes of `m` that meet the merged, sorted `ranges`."""
    starts = [a for a, _ in ranges]
    return [(h[0], h[1], "scope " + m.scopes[i]) for i, h in m.holders.items()
            if i in m.scopes and _touches(ranges, starts, h[0], h[1])]


def _innermost(holders: list[Holder], starts: list[int], ends: list[int]) -> dict[int, str]:
    """For each span (`starts`, `ends`, sorted by start) that a holder encloses: the innermost one's name."""
    out: dict[int, str] = {}
    for a, b, name in sorted(holders, key=lambda h: (h[0], -h[1])):  # outer first: inner ones overwrite
        for j in range(bisect_left(starts, a), bisect_right(starts, b)):
            if ends[j] <= b:
                out[j] = name
    return out
