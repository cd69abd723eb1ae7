"""The memories of one graph build that not every reader may see, indexed for `ltm.visibility`.

A build is immutable, so its memories that are not plainly shared (another namespace, private, or
with an expiry) are read once, grouped by namespace, by owner of the private ones and by expiry
time. What a scope may not see is then the union of a few groups, cached per (namespace, agent),
plus the memories expired at the query's moment (a binary search), not a pass over every memory
per query. Shared memories without expiry, the vast majority, are never read here.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from ltm.visibility import SHARED, Scope

CACHED_SCOPES = 32


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


class MemoryAccess:
    """Rows (id, namespace, agent_id, private, expires_at) of one build's non-plain memories."""

    def __init__(self, rows: Iterable[tuple[str, Any, Any, Any, Any]]):
        self.by_namespace: dict[str, set[str]] = {}
        self.private_by_agent: dict[Any, set[str]] = {}
        expiring: list[tuple[datetime, str]] = []
        for i, namespace, agent, private, expires in rows:
            if namespace not in (None, SHARED):
                self.by_namespace.setdefault(namespace, set()).add(i)
            if private:
                self.private_by_agent.setdefault(agent, set()).add(i)
            if expires is not None:
                expiring.append((_utc(expires), i))
        expiring.sort()
        self._times = [t for t, _ in expiring]
        self._expiring = [i for _, i in expiring]
        self._cache: dict[tuple[str, str | None], frozenset[str]] = {}

    def hidden(self, scope: Scope) -> set[str]:
        """Ids `scope` may not see: other namespaces', other agents' private ones, the expired."""
        key = (scope.namespace, scope.agent_id)
        fixed = self._cache.get(key)
        if fixed is None:
            parts = [ids for ns, ids in self.by_namespace.items() if ns != scope.namespace]
            parts += [ids for agent, ids in self.private_by_agent.items() if agent != scope.agent_id]
            fixed = frozenset().union(*parts)
            if len(self._cache) >= CACHED_SCOPES:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = fixed
        return set(fixed).union(self.expired(scope.now)) if self._times else set(fixed)

    def expired(self, now: datetime) -> list[str]:
        """Ids whose `expires_at` is at or before `now`."""
        return self._expiring[: bisect.bisect_right(self._times, _utc(now))]
