"""Query filters: repository, category, path prefix and time range.

The same filter is pushed down into LanceDB as a SQL predicate (literals validated or escaped,
LanceDB takes no bound parameters) and into Kuzu as parameters, and every final hit is checked
against it again, so no strategy can return a row outside the filter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ltm.errors import QueryError
from ltm.ids import is_valid_repo_key

_CATEGORY = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# Which graph labels can hold rows of a vector category (Memory rows carry their own category).
CATEGORY_LABELS: dict[str, tuple[str, ...]] = {
    "function": ("Function",),
    "module": ("Module", "Class"),
    "commit_log": ("Commit",),
    "guideline": ("Bug", "Memory"),
}


def _utc(value: datetime | str | None, name: str) -> datetime | None:
    if value is None or isinstance(value, datetime):
        dt = value
    else:
        try:
            dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError as e:
            raise QueryError(f"--{name} {value!r} is not a date: use ISO format, e.g. 2024-01-31 or 2024-01-31T12:00:00Z") from e
    if dt is not None and dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc) if dt is not None else None


@dataclass(frozen=True)
class Filters:
    """Restrict results to a repository, a category, a path prefix and a time range (inclusive)."""

    repo: str | None = None
    category: str | None = None
    path_prefix: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def of(cls, value: "Filters | Mapping[str, Any] | None") -> "Filters":
        """Filters from a Filters, a mapping with the same keys (`path` for `path_prefix`), or None."""
        if value is None:
            return cls()
        if isinstance(value, Filters):
            return value.checked()
        known = {"repo", "category", "path_prefix", "path", "since", "until"}
        unknown = set(value) - known
        if unknown:
            raise QueryError(f"unknown filter(s) {sorted(unknown)}: use {sorted(known - {'path'})}")
        return cls(
            repo=value.get("repo"), category=value.get("category"),
            path_prefix=value.get("path_prefix", value.get("path")),
            since=value.get("since"), until=value.get("until"),
        ).checked()

    def checked(self) -> "Filters":
        """Validate every value; dates become UTC datetimes."""
        if self.repo is not None and not is_valid_repo_key(self.repo):
            raise QueryError(f"invalid repository key {self.repo!r}: use the key `ltm ingest` printed")
        if self.category is not None and not _CATEGORY.match(self.category):
            raise QueryError(f"invalid category {self.category!r}: e.g. function, module, commit_log, guideline, memory")
        if self.path_prefix is not None and (self.path_prefix.startswith("/") or ".." in self.path_prefix.split("/")):
            raise QueryError(f"path prefix {self.path_prefix!r} must be relative to the repository root")
        since, until = _utc(self.since, "since"), _utc(self.until, "until")
        if since and until and since > until:
            raise QueryError(f"--since {since.isoformat()} is after --until {until.isoformat()}")
        return Filters(self.repo, self.category, self.path_prefix or None, since, until)

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.repo, self.category, self.path_prefix, self.since, self.until))

    def lance_where(self) -> str | None:
        """The filter as a LanceDB SQL predicate, or None. Literals are validated or quoted."""
        parts = []
        if self.repo:
            parts.append(f"repo = {sql_str(self.repo)}")
        if self.category:
            parts.append(f"category = {sql_str(self.category)}")
        if self.path_prefix:
            parts.append(f"starts_with(file_path, {sql_str(self.path_prefix)})")
        if self.since:
            parts.append(f"created_at >= TIMESTAMP '{self.since.strftime('%Y-%m-%d %H:%M:%S.%f')}'")
        if self.until:
            parts.append(f"created_at <= TIMESTAMP '{self.until.strftime('%Y-%m-%d %H:%M:%S.%f')}'")
        return " AND ".join(parts) or None

    def labels(self) -> tuple[str, ...] | None:
        """The graph labels a category filter allows (None: all)."""
        if self.category is None:
            return None
        return CATEGORY_LABELS.get(self.category, ("Memory",))

    def accepts(self, hit: Mapping[str, Any]) -> bool:
        """Whether a finished hit (repo, category, file_path, created_at) passes every filter."""
        if self.repo and hit.get("repo") != self.repo:
            return False
        if self.category and hit.get("category") != self.category:
            return False
        if self.path_prefix and not (hit.get("file_path") or "").startswith(self.path_prefix):
            return False
        if self.since or self.until:
            when = hit.get("created_at")
            if when is None:
                return False
            when = _utc(when, "created_at")
            if (self.since and when < self.since) or (self.until and when > self.until):
                return False
        return True


def sql_str(value: str) -> str:
    """A SQL string literal: single quotes doubled, control characters refused."""
    if any(ord(c) < 32 for c in value):
        raise QueryError(f"filter value {value!r} contains control characters")
    return "'" + value.replace("'", "''") + "'"
