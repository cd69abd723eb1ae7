"""Questions about code the graph answers directly: who calls a function, who depends on a module.

Read-only Cypher over the current build, always with parameters. Names match a Function's
`name` or `qualified_name` (`helper`, `Session.send`) and a Module's `name`.
"""

from __future__ import annotations

from typing import Any

import kuzu

from ltm.graph.kuzu_store import query

_CALLERS = """
MATCH (caller:Function)-[c:CALLS]->(f:Function)
WHERE (f.name = $name OR f.qualified_name = $name) AND ($repo IS NULL OR f.repo = $repo)
RETURN f.qualified_name, f.file_path, caller.qualified_name, caller.file_path, caller.line_start, c.confidence,
       caller.pagerank
ORDER BY f.file_path, f.qualified_name, c.confidence DESC, caller.file_path, caller.line_start
"""

_CALLEES = """
MATCH (f:Function)-[c:CALLS]->(callee:Function)
WHERE (f.name = $name OR f.qualified_name = $name) AND ($repo IS NULL OR f.repo = $repo)
RETURN f.qualified_name, f.file_path, callee.qualified_name, callee.file_path, callee.line_start, c.confidence,
       callee.pagerank
ORDER BY f.file_path, f.qualified_name, c.confidence DESC, callee.file_path, callee.line_start
"""

_DEPENDENTS = """
MATCH (m:Module)-[:DEPENDS_ON]->(target:Module)
WHERE target.name = $name AND ($repo IS NULL OR target.repo = $repo)
RETURN target.name, target.external, m.name, m.path, m.pagerank
ORDER BY m.name
"""


def _rows(conn: kuzu.Connection, cypher: str, name: str, repo: str | None, keys: list[str]) -> list[dict[str, Any]]:
    return [dict(zip(keys, row)) for row in query(conn, cypher, {"name": name, "repo": repo})]


def callers(conn: kuzu.Connection, name: str, repo: str | None = None) -> list[dict[str, Any]]:
    """Every function with a CALLS edge into a function named `name`, with the edge's confidence."""
    keys = ["function", "function_file", "caller", "caller_file", "caller_line", "confidence", "caller_pagerank"]
    return _rows(conn, _CALLERS, name, repo, keys)


def callees(conn: kuzu.Connection, name: str, repo: str | None = None) -> list[dict[str, Any]]:
    """Every function that a function named `name` calls (resolved calls only)."""
    keys = ["function", "function_file", "callee", "callee_file", "callee_line", "confidence", "callee_pagerank"]
    return _rows(conn, _CALLEES, name, repo, keys)


def dependents(conn: kuzu.Connection, name: str, repo: str | None = None) -> list[dict[str, Any]]:
    """Every module with a DEPENDS_ON edge to the module named `name` (internal or external)."""
    keys = ["module", "external", "dependent", "dependent_path", "dependent_pagerank"]
    return _rows(conn, _DEPENDENTS, name, repo, keys)
