"""Readers of the current graph build: counts and the node <-> vector links."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import kuzu

from ltm.errors import NotIngestedError
from ltm.graph.build import current_build
from ltm.graph.kuzu_store import open_database, query
from ltm.schema import NODE_TABLES, REL_TABLES


@contextmanager
def open_current(graph_root: Path) -> Iterator[kuzu.Connection]:
    """A read-only connection to the current build."""
    build = current_build(graph_root)
    if build is None:
        raise NotIngestedError(f"no graph has been built in {graph_root.parent}: run `ltm ingest PATH` first")
    with open_database(build, read_only=True, buffer_pool_mb=256) as conn:
        yield conn


def counts(conn: kuzu.Connection) -> tuple[dict[str, int], dict[str, int]]:
    """Node count per label and edge count per rel type."""
    nodes = {label: query(conn, f"MATCH (n:{label}) RETURN count(n)")[0][0] for label in NODE_TABLES}
    rels = {name: query(conn, f"MATCH ()-[r:{name}]->() RETURN count(r)")[0][0] for name in REL_TABLES}
    return nodes, rels


def vector_links(conn: kuzu.Connection, repo: str | None = None) -> dict[str, tuple[str, str]]:
    """graph_entity_id -> (label, vector_id) for every node that carries a vector_id."""
    out: dict[str, tuple[str, str]] = {}
    for label, table in NODE_TABLES.items():
        if not table.embedded:
            continue
        where = "n.vector_id IS NOT NULL" + (" AND n.repo = $repo" if repo else "")
        rows = query(conn, f"MATCH (n:{label}) WHERE {where} RETURN n.id, n.vector_id", {"repo": repo} if repo else None)
        out.update({eid: (label, vid) for eid, vid in rows})
    return out
