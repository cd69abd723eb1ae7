"""The server's one door into the graph library: a read-only connection that follows `graph/CURRENT`,
and the library's code queries over it.

Everything the tools read from the graph goes through `GraphReads`, so a move of the library's
readers changes this module only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltm.errors import NotIngestedError
from ltm.graph.engine import query
from ltm.graph.read import CurrentGraph
from ltm.graph.view import GraphView
from ltm.visibility import Scope


class GraphReads:
    """Parameterised reads of the current build; reopens when a build switches CURRENT;
    online memories the build lacks are overlaid (`ltm.graph.overlay`).

    Not thread-safe: the service calls it under its read lock.
    """

    def __init__(self, graph_root: Path):
        self._current = CurrentGraph(graph_root)
        self._root = Path(graph_root)

    def _view(self) -> GraphView:
        view = self._current.view()
        if view is None:
            raise NotIngestedError(f"no graph has been built in {self._root.parent}: run `ltm ingest PATH` first")
        return view

    @property
    def overlay(self):
        """The online memories the current build lacks (`ltm.graph.overlay.MemoryOverlay`), refreshed."""
        return self._view().overlay

    def has(self, label: str, prop: str) -> bool:
        """Whether the current build's `label` has property `prop` (a build made before it lacks it)."""
        return self._view().has(label, prop)

    def hidden_memories(self, scope: Scope) -> set[str]:
        """Memory ids, built or overlaid, that `scope` may not see (`ltm.visibility`)."""
        return self._view().hidden_memories(scope)

    def _conn(self):
        return self._view().conn

    @property
    def build(self) -> str | None:
        """The file name of the build the last read used."""
        return self._current.build.name if self._current.build is not None else None

    def rows(self, cypher: str, params: dict[str, Any] | None, keys: list[str]) -> list[dict[str, Any]]:
        """Run one parameterised query (None for no parameters, never `{}`); each row as a dict of `keys`."""
        return [dict(zip(keys, row)) for row in query(self._conn(), cypher, params)]

    def dependents(self, module: str, repo: str | None) -> list[dict[str, Any]]:
        """The modules that depend on `module` (what `ltm dependents NAME` prints)."""
        return self._view().dependents(module, repo)

    def close(self) -> None:
        self._current.close()
