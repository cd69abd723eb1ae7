"""Which functions and classes a file change touched: `-U0` hunks intersected with entity spans.

Deleted lines are matched against the spans of the old blob and added lines against the spans of
the new blob (the rule of PyDriller's `changed_methods`), so entities added, removed and modified
are all caught. A file rename carries every entity across (`RENAMED_FROM` old -> new path); an
entity that disappeared while one with the same body appeared is a rename of that entity.
"""

from __future__ import annotations

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
            renames.append(EntityRename(key[0], fc.path, key[1], old_path, match[1]))
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
