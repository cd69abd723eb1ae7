"""Which functions and classes a file change touched: `-U0` hunks intersected with entity spans.

Deleted lines are matched against the spans of the old blob and added lines against the spans of
the new blob (the rule of PyDriller's `changed_methods`), so entities added, removed and modified
are all caught. A file rename carries every entity across (`RENAMED_FROM` old -> new path); an
entity that disappeared while one with the same body appeared is a rename of that entity, and so is one
that left an owner while one of its name and kind arrived under another (`_moved`), and one rewritten in
place under a related name (`_replaced`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ltm.extract.history.changes import ChangeKind, FileChange
from ltm.extract.history.spans import Span


@dataclass(frozen=True)
class EntityChange:
    """One entity touched by one file change.

    `change` is added, deleted, modified or renamed; `path` and `span` locate the entity in the
    new blob, or in the old one when it was deleted.
    """

    kind: str
    path: str
    span: Span
    lines_added: int
    lines_deleted: int
    change: str


@dataclass(frozen=True)
class EntityRename:
    """`kind` entity (path, qualified name) continues (old_path, old_qualified_name)."""

    kind: str
    path: str
    qualified_name: str
    old_path: str
    old_qualified_name: str


@dataclass(frozen=True)
class SpanIndex:
    """One blob's spans by (kind, qualified name), the first definition of a name winning, in source order; the
    lines of every definition of a name count as that name's."""

    by: dict[tuple[str, str], Span]
    pos: dict[tuple[str, str], int]  # source order of each key
    lines: list[tuple[int, int, tuple[str, str]]]  # first line, last line and key of each span, by first line


def index_spans(spans: list[Span]) -> SpanIndex:
    """Index a blob's spans once; a blob is usually both sides of two file changes."""
    by: dict[tuple[str, str], Span] = {}
    for s in spans:
        by.setdefault((s.kind, s.qualified_name), s)  # a redefinition counts as its first definition
    # ... and its lines as that entity's: a change to an overload's body or a property's setter changes it
    lines = sorted((s.line_start, s.line_end, (s.kind, s.qualified_name)) for s in spans)
    return SpanIndex(by, {k: i for i, k in enumerate(by)}, lines)


def _overlaps(ix: SpanIndex, ranges: list[tuple[int, int]]) -> dict[tuple[str, str], int]:
    """Lines of `ranges` (first, count) inside each span, for the spans they touch."""
    out: dict[tuple[str, str], int] = {}
    if not ranges or not ix.lines:
        return out
    last = max(a + n - 1 for a, n in ranges)
    # Plain loops: a blob has tens of spans and a change a few ranges, too few for numpy to pay off.
    for lo, hi, key in ix.lines:
        if lo > last:
            break  # sorted by first line: no later span reaches a range
        n = 0
        for a, count in ranges:
            b = a + count - 1
            if a <= hi and b >= lo:
                n += (b if b < hi else hi) - (a if a > lo else lo) + 1
        if n:
            out[key] = out.get(key, 0) + n
    return out


def entity_changes(
    fc: FileChange, old: list[Span] | SpanIndex, new: list[Span] | SpanIndex
) -> tuple[list[EntityChange], list[EntityRename]]:
    """The entities one file change touched, and the entity renames it implies (in source order)."""
    old_ix = old if isinstance(old, SpanIndex) else index_spans(old)
    new_ix = new if isinstance(new, SpanIndex) else index_spans(new)
    old_by, new_by = old_ix.by, new_ix.by
    if fc.kind is ChangeKind.COPIED:  # the source still exists: the copy is a new file made of new entities
        return [
            EntityChange(s.kind, fc.path, s, s.line_end - s.line_start + 1, 0, "added") for s in new_by.values()
        ], []
    old_path = fc.old_path or fc.path
    changes: list[EntityChange] = []
    renames: list[EntityRename] = []
    if fc.kind is ChangeKind.RENAMED and old_path != fc.path:
        renames = [EntityRename(k, fc.path, q, old_path, q) for (k, q) in new_by if (k, q) in old_by]
    deleted, added = _overlaps(old_ix, fc.deleted), _overlaps(new_ix, fc.added)
    # Lists in source order, not sets: the result must not depend on hash order.
    gone = sorted(old_by.keys() - new_by.keys(), key=old_ix.pos.__getitem__)
    born = sorted(new_by.keys() - old_by.keys(), key=new_ix.pos.__getitem__)
    # A body that stayed while the name changed: the new entity continues the old one.
    gone_by_body: dict[tuple[str, str], tuple[str, str]] = {}
    for k in gone:
        gone_by_body.setdefault((k[0], old_by[k].body_hash), k)
    renamed_from: dict[tuple[str, str], tuple[str, str]] = {}
    for key in born:
        match = gone_by_body.pop((key[0], new_by[key].body_hash), None)
        if match is not None:
            renamed_from[key] = match
    _moved(gone, born, renamed_from, old_by, new_by)
    _replaced(gone, born, renamed_from, old_by, new_by, fc.hunks)
    _follow(gone, born, renamed_from)
    renames += [EntityRename(k[0], fc.path, k[1], old_path, renamed_from[k][1]) for k in born if k in renamed_from]
    born_set = set(born)
    touched = born_set | added.keys() | (deleted.keys() & new_by.keys())
    for key in sorted(touched, key=new_ix.pos.__getitem__):
        s, n_add, n_del = new_by[key], added.get(key, 0), deleted.get(key, 0)
        if key in born_set:
            if n_add or key in renamed_from:
                changes.append(EntityChange(key[0], fc.path, s, n_add, 0, "renamed" if key in renamed_from else "added"))
        else:
            changes.append(EntityChange(key[0], fc.path, s, n_add, n_del, "modified"))
    renamed_old = set(renamed_from.values())
    for key in gone:
        n_del = deleted.get(key, 0)
        if n_del or key in renamed_old:
            changes.append(EntityChange(key[0], old_path, old_by[key], 0, n_del, "deleted"))
    return changes, renames


def _moved(gone: list[tuple[str, str]], born: list[tuple[str, str]], renamed_from: dict, old_by: dict,
           new_by: dict) -> None:
    """Add to `renamed_from` the definitions that moved to another owner under their own name.

    A test method become a module function (`TestX.test_a` -> `test_a`), a method moved between classes, each
    with its body edited on the way: where one definition of that kind and name left and one arrived in this
    change, the new one continues the old. Only a top-level definition or a class's member counts by its name
    (a function's inner `index` is one of many: those follow their owner, `_follow`).
    """
    taken = set(renamed_from.values())
    left: dict[tuple[str, str], list[tuple[str, str]]] = {}
    came: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for keys, into, by in ((gone, left, old_by), (born, came, new_by)):
        for k in keys:
            owner, _, name = k[1].rpartition(".")
            if k not in taken and k not in renamed_from and (not owner or ("class", owner) in by):
                into.setdefault((k[0], name), []).append(k)
    for name, olds in left.items():
        news = came.get(name, [])
        if len(olds) == 1 and len(news) == 1:
            renamed_from[news[0]] = olds[0]


def _follow(gone: list[tuple[str, str]], born: list[tuple[str, str]], renamed_from: dict) -> None:
    """What a renamed or moved definition encloses follows it (`TestX.test_a.index` -> `test_a.index`)."""
    taken = set(renamed_from.values())
    gone_set = set(gone)
    for key in born:  # source order: an owner before what it encloses
        if key in renamed_from:
            continue
        for new_owner, old_owner in list(renamed_from.items()):
            prefix = new_owner[1] + "."
            if key[1].startswith(prefix):
                old = (key[0], old_owner[1] + "." + key[1][len(prefix):])
                if old in gone_set and old not in taken:
                    renamed_from[key] = old
                    taken.add(old)
                    break


_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


_MARKERS = {"test", "tests", "spec"}  # say what kind of function, not which: `TestBindingForm`, `TestContextType`


def _words(name: str) -> set[str]:
    """The words of an identifier, lower case, three letters or more (`initHelpCmd` -> init, help, cmd)."""
    return {w.lower() for w in _WORD.findall(name) if len(w) >= 3} - _MARKERS


def _related(a: set[str], b: set[str]) -> bool:
    """Names that share at least half the words of the shorter one (`merge_kwargs`, `merge_setting`)."""
    return 2 * len(a & b) >= min(len(a), len(b)) > 0


def _old_line(line: int, hunks: list[tuple[int, int, int, int]]) -> int:
    """Where a line of the new blob was in the old one: shifted past the hunks above it; a line a hunk added
    sits where the lines that hunk removed were."""
    shift = 0
    for old_start, old_count, new_start, new_count in hunks:
        if new_count and new_start <= line < new_start + new_count:
            return old_start + min(line - new_start, max(old_count - 1, 0))
        if line <= (new_start + new_count - 1 if new_count else new_start):
            break
        shift = (old_start + old_count) - (new_start + new_count)
    return line + shift


def _replaced(gone: list[tuple[str, str]], born: list[tuple[str, str]], renamed_from: dict, old_by: dict,
              new_by: dict, hunks: list[tuple[int, int, int, int]]) -> None:
    """Add to `renamed_from` the definitions rewritten in place under a related name.

    `initHelpCmd` rewritten as `InitDefaultHelpCmd`, `merge_kwargs` as `merge_setting`: one of a kind left its
    owner and one arrived in the same owner, over the same lines (the new one, mapped through the hunks, covers
    at least half of the old one or of itself), their names sharing half the words of the shorter (`_related`).
    Each pairs once, with its best.
    """
    taken = set(renamed_from.values())
    olds: dict[tuple[str, str], list[tuple[tuple[str, str], set[str]]]] = {}  # (kind, owner) -> gone, its words
    for old in gone:
        if old not in taken:
            owner, _, name = old[1].rpartition(".")
            olds.setdefault((old[0], owner), []).append((old, _words(name)))
    best: dict[tuple[str, str], tuple[int, tuple[str, str]]] = {}
    for key in born:
        owner, _, name = key[1].rpartition(".")
        if key in renamed_from or (key[0], owner) not in olds:
            continue
        span = new_by[key]
        lo, hi = _old_line(span.line_start, hunks), _old_line(span.line_end, hunks)
        words = _words(name)
        for old, old_words in olds[(key[0], owner)]:
            if not _related(words, old_words):
                continue
            o = old_by[old]
            cover = min(hi, o.line_end) - max(lo, o.line_start) + 1
            if cover * 2 >= min(hi - lo + 1, o.line_end - o.line_start + 1) and cover > best.get(key, (0,))[0]:
                best[key] = (cover, old)
    chosen: dict[tuple[str, str], tuple[int, tuple[str, str]]] = {}
    for key, (cover, old) in best.items():
        if cover > chosen.get(old, (0,))[0]:
            chosen[old] = (cover, key)
    for old, (_, key) in chosen.items():
        renamed_from[key] = old
