"""Callers and callees from the graph's CALLS edges, to a depth: a breadth-first walk by node id.

Depth 1 answers what `ltm calls NAME` answers; each deeper level starts from the functions first
reached at the level before, so a cycle ends the walk instead of repeating it.
"""

from __future__ import annotations

from typing import Any

from ltm.errors import QueryError
from server.graph_reads import GraphReads

MAX_DEPTH = 5
MAX_ROWS = 500  # an answer a model can read; a wider walk is cut and says so

# `{repo}`: " AND f.repo = $repo" when a repository is named, else nothing (a null `$repo` beside
# `$repo IS NULL OR` is typed BOOL by LadybugDB, which then fails on every repo string).
_TARGETS = """
MATCH (f:Function)
WHERE (f.id = $name OR f.name = $name OR f.qualified_name = $name){repo}
RETURN f.id ORDER BY f.id
"""

# One level of the walk; `$ids` are the functions reached so far at the previous depth.
_STEP = {
    "callers": """
MATCH (other:Function)-[c:CALLS]->(f:Function)
WHERE f.id IN $ids AND c.confidence >= $min
RETURN f.id, f.qualified_name, f.file_path, other.id, other.qualified_name, other.file_path, other.line_start,
       c.confidence, other.pagerank
""",
    "callees": """
MATCH (f:Function)-[c:CALLS]->(other:Function)
WHERE f.id IN $ids AND c.confidence >= $min
RETURN f.id, f.qualified_name, f.file_path, other.id, other.qualified_name, other.file_path, other.line_start,
       c.confidence, other.pagerank
""",
}
_KEYS = ["function_id", "function", "function_file", "other_id", "other", "other_file", "other_line", "confidence",
         "other_pagerank"]


def check_depth(depth: int) -> None:
    if not 1 <= depth <= MAX_DEPTH:
        raise QueryError(f"depth {depth} is out of range: use 1 to {MAX_DEPTH}")


def function_ids(reads: GraphReads, name: str, repo: str | None) -> list[str]:
    """Ids of the functions `name` matches (an id, a name or a qualified name); an error if none."""
    if not name.strip():
        raise QueryError("the function name is empty: pass a name such as `helper` or `Session.send`, or an fn: id")
    cypher = _TARGETS.format(repo=" AND f.repo = $repo" if repo else "")
    found = [r["id"] for r in reads.rows(cypher, {"name": name, **({"repo": repo} if repo else {})}, ["id"])]
    if not found:
        where = f" in repository {repo!r}" if repo else ""
        raise QueryError(f"no function named {name!r}{where}: use `query` to find its exact name or id")
    return found


def walk(
    reads: GraphReads, targets: list[str], direction: str, depth: int, min_confidence: float
) -> tuple[list[dict[str, Any]], bool]:
    """Every CALLS edge from `targets` outwards (`callers` or `callees`) to `depth` hops, each with its
    depth, nearest first; and whether the walk was cut at MAX_ROWS edges."""
    check_depth(depth)
    if not 0 <= min_confidence <= 1:
        raise QueryError(f"min_confidence {min_confidence} is out of range: use 0 to 1")
    seen = set(targets)
    frontier, out = list(targets), []
    for level in range(1, depth + 1):
        if not frontier:
            break
        if len(out) >= MAX_ROWS:
            return out[:MAX_ROWS], True
        rows = reads.rows(_STEP[direction], {"ids": frontier, "min": float(min_confidence)}, _KEYS)
        rows.sort(key=lambda r: (r["function_file"] or "", r["function"] or "", -(r["confidence"] or 0),
                                 r["other_file"] or "", r["other_line"] or 0))
        frontier = []
        for r in rows:
            out.append({**r, "depth": level})
            if r["other_id"] not in seen:
                seen.add(r["other_id"])
                frontier.append(r["other_id"])
    return out[:MAX_ROWS], len(out) > MAX_ROWS
