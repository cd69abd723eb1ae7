"""The graph half of retrieval: what the current build holds, node summaries, neighbours, full text.

Every query is parameterised (`$ids`, `$q`); only labels and property names from the build's own
catalogue are written into the Cypher text. Properties and edges that later stages add
(`pagerank`, fix counts, CALLS, MODIFIES, FIXES, AFFECTS) are used when the build has them and
skipped when it does not, so retrieval works on any build.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import kuzu

from ltm.graph.kuzu_store import query
from ltm.schema import REL_TABLES

ID_PREFIX_LABEL = {
    "fn": "Function", "cls": "Class", "mod": "Module", "file": "File", "commit": "Commit",
    "bug": "Bug", "mem": "Memory", "repo": "Repository",
}
# Node properties a stage stores as defect signals (FunctionDefects: fix_count, bugs_introduced); summed.
DEFECT_PROPS = ("fix_count", "bugs_introduced", "bug_count", "defect_count")
CENTRALITY_PROPS = ("pagerank", "page_rank")
# What a neighbour shows of itself, read in the same query as the edge.
SHOWN_PROPS = ("qualified_name", "name", "path", "sha", "message", "committed_at", "author_name", "ref", "title", "category")


def label_of(entity_id: str) -> str | None:
    """The node label of a graph_entity_id, from its prefix (`fn:` -> Function, ...)."""
    return ID_PREFIX_LABEL.get(entity_id.split(":", 1)[0])


def by_label(ids: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for i in dict.fromkeys(ids):
        label = label_of(i)
        if label:
            out[label].append(i)
    return out


@dataclass
class Node:
    """What retrieval shows of a node without reading LanceDB."""

    id: str
    label: str
    repo: str | None = None
    vector_id: str | None = None
    name: str | None = None
    file_path: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    created_at: Any = None
    text: str | None = None
    pagerank: float | None = None
    defects: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


# label -> summary expressions (key, property); only those the build has are selected.
_SUMMARY = {
    "Function": [("name", "qualified_name"), ("file_path", "file_path"), ("line_start", "line_start"),
                 ("line_end", "line_end"), ("text", "signature"), ("doc", "docstring")],
    "Class": [("name", "qualified_name"), ("file_path", "file_path"), ("line_start", "line_start"),
              ("line_end", "line_end"), ("text", "docstring")],
    "Module": [("name", "name"), ("file_path", "path")],
    "File": [("name", "path"), ("file_path", "path")],
    "Commit": [("name", "sha"), ("text", "message"), ("created_at", "committed_at"),
               ("author", "author_name"), ("author_email", "author_email"), ("kind", "kind")],
    "Bug": [("name", "ref"), ("text", "title")],
    "Memory": [("name", "category"), ("text", "content"), ("created_at", "created_at"), ("category", "category")],
    "Repository": [("name", "name")],
}


class GraphView:
    """A read-only connection to one build plus its catalogue: tables, properties, FTS indexes."""

    def __init__(self, conn: kuzu.Connection):
        self.conn = conn
        self.props: dict[str, set[str]] = {}
        self.rels: set[str] = set()
        self.fts: dict[str, str] = {}
        for row in self.run("CALL show_tables() RETURN name, type"):
            name, kind = row
            if kind == "NODE":
                self.props[name] = {r[0] for r in self.run(f"CALL table_info('{name}') RETURN name")}
            elif kind == "REL" and self.run(f"MATCH ()-[r:{name}]->() RETURN count(r) > 0")[0][0]:
                self.rels.add(name)
        try:
            for row in self.run("CALL show_indexes() RETURN *"):
                table, index, kind = row[0], row[1], row[2]
                if str(kind).upper() == "FTS":
                    self.fts[table] = index
        except RuntimeError:
            self.fts = {}
        if self.fts:
            try:
                self.run("LOAD EXTENSION fts")
            except RuntimeError:
                pass  # already loaded in this process

    def run(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """A parameterised query (None, never `{}`, when there is nothing to bind)."""
        return query(self.conn, cypher, params or None)

    def has(self, label: str, prop: str) -> bool:
        return prop in self.props.get(label, ())

    def first_prop(self, label: str, names: Iterable[str]) -> str | None:
        return next((p for p in names if self.has(label, p)), None)

    # --- nodes ---------------------------------------------------------------------------
    def nodes(self, ids: Iterable[str], defects: bool = True) -> dict[str, Node]:
        """Summaries of the given entity ids (unknown ids are left out); `defects`: also the edge-derived count."""
        out: dict[str, Node] = {}
        for label, group in by_label(ids).items():
            if label not in self.props:
                continue
            spec = [(k, p) for k, p in _SUMMARY.get(label, []) if self.has(label, p)]
            for key, prop in (("vector_id", "vector_id"), ("pagerank", self.first_prop(label, CENTRALITY_PROPS)),
                              *((f"defects:{p}", p) for p in DEFECT_PROPS)):
                if prop and self.has(label, prop):
                    spec.append((key, prop))
            cols = ", ".join(["n.id", "n.repo"] + [f"n.{p} AS c{i}" for i, (_, p) in enumerate(spec)])
            for row in self.run(f"MATCH (n:{label}) WHERE n.id IN $ids RETURN {cols}", {"ids": group}):
                vals = dict(zip([k for k, _ in spec], row[2:]))
                node = Node(id=row[0], label=label, repo=row[1])
                for k, v in vals.items():
                    if k in ("vector_id", "name", "file_path", "line_start", "line_end", "created_at", "text", "pagerank"):
                        setattr(node, k, v)
                    elif k.startswith("defects:"):
                        node.defects += float(v or 0)
                    elif v is not None:
                        node.extra[k] = v
                if node.text is None and vals.get("doc"):
                    node.text = vals["doc"]
                elif vals.get("doc"):
                    node.text = f"{node.text}\n{vals['doc']}"
                out[node.id] = node
        if defects:
            self._derived_defects(out)
        return out

    def _derived_defects(self, nodes: dict[str, Node]) -> None:
        """Defect signal from edges where no stage stored one: bugs affecting it, bug-fix commits modifying it."""
        groups = by_label(n.id for n in nodes.values() if n.label in ("Function", "Class")
                          and not self.first_prop(n.label, DEFECT_PROPS))  # a stored count is authoritative
        for label, group in groups.items():
            counts: dict[str, int] = defaultdict(int)
            if "AFFECTS" in self.rels and label in ("Function", "Class"):
                for eid, n in self.run(f"MATCH (b:Bug)-[:AFFECTS]->(n:{label}) WHERE n.id IN $ids RETURN n.id, count(b)", {"ids": group}):
                    counts[eid] += n
            if "MODIFIES" in self.rels and self.has("Commit", "kind"):
                for eid, n in self.run(
                    f"MATCH (c:Commit)-[:MODIFIES]->(n:{label}) WHERE n.id IN $ids AND c.kind = 'bugfix' RETURN n.id, count(c)",
                    {"ids": group},
                ):
                    counts[eid] += n
            for eid, n in counts.items():
                nodes[eid].defects = max(nodes[eid].defects, float(n))

    # --- neighbours ------------------------------------------------------------------------
    def _reachable(self, label: str, direction: str) -> set[str]:
        """Labels one hop from `label` in `direction`, from the schema's rel pairs present in this build."""
        return {b if direction == "out" else a for name, rel in REL_TABLES.items() if name in self.rels
                for a, b in rel.pairs if (a if direction == "out" else b) == label}

    def neighbours(self, ids: Iterable[str], limit_per_node: int = 50) -> dict[str, list[tuple[str, str, str, dict]]]:
        """id -> [(relation, direction 'out'|'in', neighbour id, what to show of it)] one hop away."""
        out: dict[str, list[tuple[str, str, str, dict]]] = defaultdict(list)
        if not self.rels:
            return out
        for label, group in by_label(ids).items():
            if label not in self.props:
                continue
            for direction, pattern in (("out", f"(n:{label})-[r]->(m)"), ("in", f"(n:{label})<-[r]-(m)")):
                near = self._reachable(label, direction)
                if not near:
                    continue
                # Only properties some reachable label has: Kuzu refuses one that none of them has.
                shown = [p for p in SHOWN_PROPS if any(self.has(lab, p) for lab in near)]
                cols = "".join(f", m.{p} AS p{k}" for k, p in enumerate(shown))
                # One LIMIT for the group: a hub (a function with thousands of callers) cannot flood the answer.
                rows = self.run(f"MATCH {pattern} WHERE n.id IN $ids RETURN n.id, label(r), m.id, label(m){cols} LIMIT $lim",
                                {"ids": group, "lim": limit_per_node * len(group)})
                for src, rel, dst, mlabel, *vals in rows:
                    if len(out[src]) < 2 * limit_per_node:
                        info = {"label": mlabel, **{p: v for p, v in zip(shown, vals) if v is not None}}
                        out[src].append((rel, direction, dst, info))
        return out

    # --- full text --------------------------------------------------------------------------
    def full_text(self, text: str, labels: Iterable[str] | None = None, limit: int = 20) -> list[tuple[str, float]]:
        """(id, score) from Kuzu's full-text indexes, best first, over the given labels."""
        hits: list[tuple[str, float]] = []
        for label, index in self.fts.items():
            if labels is not None and label not in labels:
                continue
            rows = self.run(
                f"CALL QUERY_FTS_INDEX('{label}', '{index}', $q, top := $k) RETURN node.id, score",
                {"q": text, "k": limit},
            )
            hits.extend((r[0], float(r[1])) for r in rows)
        hits.sort(key=lambda h: -h[1])
        return hits[:limit]
