"""Reconciliation: proof that the graph and the vectors point at each other.

Every graph node with a `vector_id` must have that vector row, and the row's `graph_entity_id`
must name the node back; every vector row with a `graph_entity_id` must have that node, carrying
the row's `vector_id`. Anything else is an orphan or a broken link and is reported by id. Online
memories the build does not hold yet are nodes of the graph's overlay (`ltm.graph.overlay`); an
online add a kill interrupted is finished or undone first (`ltm.memory.journal`), by the caller.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ltm.graph.read import open_view, vector_links
from ltm.vectors import VectorStore

SAMPLE = 20


@dataclass
class Report:
    ok: bool
    graph_nodes_with_vector: int
    vector_rows: int
    linked: int
    coverage: float
    orphans: dict[str, list[str]] = field(default_factory=dict)
    orphan_counts: dict[str, int] = field(default_factory=dict)
    by_label: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def reconcile(graph_root: Path, vectors_root: Path, repo: str | None = None) -> Report:
    """Check both directions of the node <-> vector link (one repository, or the whole home)."""
    with open_view(graph_root) as view:
        nodes = vector_links(view.conn, repo)
        overlay = view.overlay  # online memories the build does not hold yet count as its nodes
        nodes.update({i: ("Memory", m["vector_id"]) for i, m in (overlay.memories.items() if overlay else ())
                      if m.get("vector_id") and (repo is None or m["repo"] == repo)})
        # expired memories are on their way out (maintenance removes their rows before a build drops
        # their nodes): neither side counts them
        expired = view.expired_memories(datetime.now(timezone.utc))
    nodes = {i: v for i, v in nodes.items() if i not in expired}
    rows = {vid: eid for vid, eid in VectorStore(vectors_root).links(repo).items() if eid not in expired}
    node_by_vid = {vid: eid for eid, (_, vid) in nodes.items()}

    nodes_without_row = sorted(eid for eid, (_, vid) in nodes.items() if vid not in rows)
    rows_without_node = sorted(vid for vid, eid in rows.items() if eid is not None and eid not in nodes)
    mismatched = sorted(
        f"{eid} -> {vid} -> {rows[vid]}" for eid, (_, vid) in nodes.items() if vid in rows and rows[vid] != eid
    )
    wrong_back = sorted(
        f"{vid} -> {eid} -> {nodes[eid][1]}"
        for vid, eid in rows.items()
        if eid is not None and eid in nodes and nodes[eid][1] != vid and vid not in node_by_vid
    )
    groups = {
        "nodes_without_vector_row": nodes_without_row,
        "vector_rows_without_node": rows_without_node,
        "node_to_row_mismatch": mismatched,
        "row_to_node_mismatch": wrong_back,
    }
    linked = len(nodes) - len(nodes_without_row) - len(mismatched)
    by_label: dict[str, int] = {}
    for label, _ in nodes.values():
        by_label[label] = by_label.get(label, 0) + 1
    return Report(
        ok=not any(groups.values()),
        graph_nodes_with_vector=len(nodes),
        vector_rows=len(rows),
        linked=linked,
        coverage=round(linked / len(nodes), 6) if nodes else 1.0,
        orphans={k: v[:SAMPLE] for k, v in groups.items()},
        orphan_counts={k: len(v) for k, v in groups.items()},
        by_label=by_label,
    )
