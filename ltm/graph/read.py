"""Opening the current graph build (the one `graph/CURRENT` names) for reading, and what a reader
asks of the whole build: node and edge counts, the node <-> vector links.

`open_current` and `open_view` open it for one command (a view with the online memories the build
lacks overlaid, `overlay.py`); `CurrentGraph` keeps a view open between
queries, since opening a Kuzu database costs more than a query, and reopens it only when CURRENT
names another build (a build finished). A build in progress writes its own file and never blocks
or changes what a reader answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path


from ltm.errors import NotIngestedError
from ltm.graph.current import current_build
from ltm.graph.engine import Connection, open_database, query
from ltm.graph.view import GraphView
from ltm.schema import NODE_TABLES, REL_TABLES


def lake_root(graph_root: Path) -> Path:
    """The lake beside a home's graph folder (`<home>/lake`), whose online memories a view overlays."""
    return Path(graph_root).parent / "lake"


@contextmanager
def open_current(graph_root: Path) -> Iterator[Connection]:
    """A read-only connection to the current build."""
    build = current_build(graph_root)
    if build is None:
        raise NotIngestedError(f"no graph has been built in {graph_root.parent}: run `ltm ingest PATH` first")
    with open_database(build, read_only=True, buffer_pool_mb=256) as conn:
        yield conn


@contextmanager
def open_view(graph_root: Path) -> Iterator[GraphView]:
    """A read-only view of the current build."""
    build = current_build(graph_root)
    with open_current(graph_root) as conn:
        yield GraphView(conn, build).attach_overlay(lake_root(graph_root))


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
                    self._view = GraphView(conn, build).attach_overlay(lake_root(self.root))
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


def counts(conn: Connection) -> tuple[dict[str, int], dict[str, int]]:
    """Node count per label and edge count per rel type."""
    nodes = {label: query(conn, f"MATCH (n:{label}) RETURN count(n)")[0][0] for label in NODE_TABLES}
    rels = {name: query(conn, f"MATCH ()-[r:{name}]->() RETURN count(r)")[0][0] for name in REL_TABLES}
    return nodes, rels


def vector_links(conn: Connection, repo: str | None = None) -> dict[str, tuple[str, str]]:
    """graph_entity_id -> (label, vector_id) for every node that carries a vector_id."""
    out: dict[str, tuple[str, str]] = {}
    for label, table in NODE_TABLES.items():
        if not table.embedded:
            continue
        where = "n.vector_id IS NOT NULL" + (" AND n.repo = $repo" if repo else "")
        rows = query(conn, f"MATCH (n:{label}) WHERE {where} RETURN n.id, n.vector_id", {"repo": repo} if repo else None)
        out.update({eid: (label, vid) for eid, vid in rows})
    return out
