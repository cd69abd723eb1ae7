"""A long-lived read-only view of the graph build that `graph/CURRENT` names.

Opening a Kuzu database costs more than a query, so the view stays open between queries and is
reopened only when CURRENT names another build (a build finished). A build in progress writes
its own file and never blocks or changes what this view answers.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from ltm.graph.build import current_build
from ltm.graph.kuzu_store import open_database
from ltm.retrieval.graph_side import GraphView


class CurrentGraph:
    """`view()` returns the GraphView of the current build, or None before the first build."""

    def __init__(self, graph_root: Path, buffer_pool_mb: int = 256):
        self.root = Path(graph_root)
        self.buffer_pool_mb = buffer_pool_mb
        self._stack: ExitStack | None = None
        self._build: Path | None = None
        self._view: GraphView | None = None

    def view(self) -> GraphView | None:
        build = current_build(self.root)
        if build != self._build:
            self.close()
            if build is not None:
                stack = ExitStack()
                try:
                    conn = stack.enter_context(open_database(build, read_only=True, buffer_pool_mb=self.buffer_pool_mb))
                    self._view = GraphView(conn)
                except BaseException:
                    stack.close()
                    raise
                self._stack, self._build = stack, build
        return self._view

    @property
    def build(self) -> Path | None:
        return self._build

    def close(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack, self._build, self._view = None, None, None
