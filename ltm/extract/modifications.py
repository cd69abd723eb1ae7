"""Which functions and classes a file change touched: `-U0` hunks intersected with entity spans.

Deleted lines are matched against the spans of the old blob and added lines against the spans of
the new blob (the rule of PyDriller's `changed_methods`), so entities added, removed and modified
are all caught. A file rename carries every entity across (`RENAMED_FROM` old -> new path); an
entity that disappeared while one with the same body appeared is a rename of that entity.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ltm.extract.changes import ChangeKind, FileChange
from ltm.extract.spans import Span


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


def _overlap(ranges: list[tuple[int, int]], starts: list[int], start: int, end: int) -> int:
    """Lines of the sorted, disjoint `ranges` (first, count) that fall in [start, end]."""
    n = 0
    i = bisect_right(starts, end) - 1  # the last range that begins at or before `end`
    while i >= 0:
        first, count = ranges[i]
        last = first + count - 1
        if last < start:
            break
        n += min(last, end) - max(first, start) + 1
        i -= 1
    return n


def _by_name(spans: list[Span]) -> dict[tuple[str, str], Span]:
    out: dict[tuple[str, str], Span] = {}
    for s in spans:
        out.setdefault((s.kind, s.qualified_name), s)  # a redefinition counts as its first definition
    return out


def entity_changes(
    fc: FileChange, old: list[Span], new: list[Span]
) -> tuple[list[EntityChange], list[EntityRename]]:
    """The entities one file change touched, and the entity renames it implies."""
    old_by, new_by = _by_name(old), _by_name(new)
    copied = fc.kind is ChangeKind.COPIED
    if copied:  # the source still exists: the copy is a new file made of new entities
        return [
            EntityChange(s.kind, fc.path, s, s.line_end - s.line_start + 1, 0, "added") for s in new_by.values()
        ], []
    old_path = fc.old_path or fc.path
    changes: list[EntityChange] = []
    renames: list[EntityRename] = []
    if fc.kind is ChangeKind.RENAMED and old_path != fc.path:
        renames = [EntityRename(k, fc.path, q, old_path, q) for (k, q) in new_by if (k, q) in old_by]
    dels, adds = sorted(fc.deleted), sorted(fc.added)
    del_starts, add_starts = [r[0] for r in dels], [r[0] for r in adds]
    deleted = {key: _overlap(dels, del_starts, s.line_start, s.line_end) for key, s in old_by.items()}
    added = {key: _overlap(adds, add_starts, s.line_start, s.line_end) for key, s in new_by.items()}
    # Lists in source order, not sets: the result must not depend on hash order.
    gone = [key for key in old_by if key not in new_by]
    born = [key for key in new_by if key not in old_by]
    # A body that stayed while the name changed: the new entity continues the old one.
    gone_by_body: dict[tuple[str, str], tuple[str, str]] = {}
    for k in gone:
        gone_by_body.setdefault((k[0], old_by[k].body_hash), k)
    renamed_from: dict[tuple[str, str], tuple[str, str]] = {}
    born_set = set(born)
    for key in born:
        match = gone_by_body.pop((key[0], new_by[key].body_hash), None)
        if match is not None:
            renamed_from[key] = match
            renames.append(EntityRename(key[0], fc.path, key[1], old_path, match[1]))
    for key, s in new_by.items():
        n_add, n_del = added[key], deleted.get(key, 0)
        if key in born_set:
            if n_add or key in renamed_from:
                changes.append(EntityChange(key[0], fc.path, s, n_add, 0, "renamed" if key in renamed_from else "added"))
        elif n_add or n_del:
            changes.append(EntityChange(key[0], fc.path, s, n_add, n_del, "modified"))
    for key in gone:
        s = old_by[key]
        if deleted[key] or key in renamed_from.values():
            changes.append(EntityChange(key[0], old_path, s, 0, deleted[key], "deleted"))
    return changes, renames
