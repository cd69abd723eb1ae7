"""Who sees which memory: namespaces, agents, private memories and expiry (the isolation rule).

Every memory carries `namespace` (null reads as `shared`), `agent_id` (who stored it; optional),
`private` (null reads as false) and `expires_at` (null: never). A reader's `Scope` is a namespace
N (default `shared`) and optionally an agent A; it sees a memory when all three hold:

1. the memory's namespace is `shared` or N (a query in N sees the shared memories and N's own,
   never another namespace's);
2. the memory is not private, or its `agent_id` is A (a private memory is its agent's alone,
   whatever the namespace);
3. it has not expired: `expires_at` is null or later than the moment of the query (so an
   expired memory is never answered, even before the `maintenance` asset removes it).

Code, commits, bugs and every other row that is not a memory are seen by every scope. A home
written before these columns existed reads as all shared, no agent, no expiry.

Both stores apply it: `lance_where` is a LanceDB prefilter (names validated, then quote-doubled,
as LanceDB takes no bound parameters), `cypher` a Kuzu condition over bound parameters, and
`sees` checks a row in Python (the graph overlay, every hit and neighbour again).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ltm.errors import QueryError

SHARED = "shared"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$")
COLUMNS = ("namespace", "agent_id", "private", "expires_at")
"""The memory columns the rule reads (Memory node, lake row, vector row)."""


def check_name(value: Any, what: str, error: type[Exception] = QueryError) -> str | None:
    """A namespace or agent id as given (None stays None), or `error` naming the allowed form."""
    if value is None:
        return None
    if not isinstance(value, str) or not NAME.match(value):
        raise error(f"{what} {value!r} is not a valid name: use 1 to 128 letters, digits and _ . : @ / - "
                    "(starting with a letter or digit), e.g. team-a")
    return value


def _utc(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Scope:
    """The namespace and agent a reader asks as, and the moment that decides expiry."""

    namespace: str = SHARED
    agent_id: str | None = None
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @classmethod
    def of(cls, namespace: str | None = None, agent_id: str | None = None, now: datetime | None = None) -> "Scope":
        """A checked scope (QueryError for a malformed name); namespace None is `shared`."""
        return cls(check_name(namespace, "namespace") or SHARED, check_name(agent_id, "agent_id"),
                   _utc(now) or datetime.now(timezone.utc))

    def sees(self, namespace: Any = None, agent_id: Any = None, private: Any = None, expires_at: Any = None) -> bool:
        """Whether a memory with these columns is visible in this scope (see the module doc)."""
        if namespace not in (None, SHARED, self.namespace):
            return False
        if private and agent_id != self.agent_id:
            return False
        expires = _utc(expires_at)
        return expires is None or expires > self.now

    def sees_row(self, row: Mapping[str, Any]) -> bool:
        """`sees` over a row's columns (a row without them, code or an old memory, is seen)."""
        return self.sees(*(row.get(c) for c in COLUMNS))

    def lance_where(self) -> str:
        """The rule as a LanceDB SQL predicate (rows that are not memories have null columns: seen)."""
        names = ", ".join(_sql_str(n) for n in dict.fromkeys((SHARED, self.namespace)))
        mine = f" OR agent_id = {_sql_str(self.agent_id)}" if self.agent_id else ""
        stamp = self.now.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
        return (f"(namespace IS NULL OR namespace IN ({names})) AND (private IS NULL OR NOT private{mine}) "
                f"AND (expires_at IS NULL OR expires_at > TIMESTAMP '{stamp}')")

    def cypher(self, var: str) -> tuple[str, dict[str, Any]]:
        """The rule as a Kuzu condition on node `var` and its parameters (bound, never written in)."""
        cond = (f"({var}.namespace IS NULL OR {var}.namespace IN $scope_ns) "
                f"AND ({var}.private IS NULL OR NOT {var}.private OR {var}.agent_id = $scope_agent) "
                f"AND ({var}.expires_at IS NULL OR {var}.expires_at > $scope_now)")
        return cond, {"scope_ns": list(dict.fromkeys((SHARED, self.namespace))),
                      "scope_agent": self.agent_id or "", "scope_now": self.now}


def _sql_str(value: str) -> str:
    """A SQL literal of a checked name (NAME has no quote; doubled anyway)."""
    check_name(value, "name")
    return "'" + value.replace("'", "''") + "'"
