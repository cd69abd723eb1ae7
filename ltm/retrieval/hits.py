"""What a hit shows: its record (id, label, name, location, date, content), its scores and reasons,
and the neighbours worth showing around it."""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import datetime
from typing import Any

from ltm.graph.entity_ids import label_of, name_from_id, short_name
from ltm.graph.node import Node
from ltm.graph.view import GraphView
from ltm.retrieval.expand import Edge, neighbourhood
from ltm.retrieval.filters import Filters
from ltm.schema import NODE_TABLES

MAX_NEIGHBOURS_SHOWN = 12
DETAILED_LABELS = ("Commit", "Bug", "Memory")  # neighbours shown with more than their id says
SHOWN_LABELS = ("Commit", "Bug", "Memory", "Function", "Class", "File")  # hits that show stored properties
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+)$", re.M)
_SHOW_FIRST = ("CALLS", "HAS_METHOD", "MODIFIES", "FIXES", "AFFECTS", "DEFINED_IN", "BELONGS_TO", "IMPORTS")


def _category(node: Node | None, row: dict | None) -> str | None:
    if row is not None:
        return row.get("category")
    if node is None:
        return None
    if node.label == "Memory":
        return node.extra.get("category") or node.name
    t = NODE_TABLES.get(node.label)
    return t.category.value if t is not None and t.category is not None else None


def _record(key: str, node: Node | None, row: dict | None) -> dict[str, Any]:
    created = (row or {}).get("created_at") or (node.created_at if node else None)
    return {
        "graph_entity_id": (row or {}).get("graph_entity_id") or (node.id if node else None),
        "vector_id": (row or {}).get("vector_id") or (node.vector_id if node else None),
        "label": (row or {}).get("label") or (node.label if node else None),
        "name": node.name if node else None,
        "category": _category(node, row),
        "repo": (row or {}).get("repo") or (node.repo if node else None),
        "file_path": (row or {}).get("file_path") or (node.file_path if node else None),
        "line_start": (row or {}).get("line_start") or (node.line_start if node else None),
        "line_end": (row or {}).get("line_end") or (node.line_end if node else None),
        "created_at": created.isoformat() if isinstance(created, datetime) else created,
        "content": (row or {}).get("content") or (node.text if node else None) or key,
    }


def select_hits(
    g: GraphView | None, strategy: str, from_nodes: bool, order: list[str], sig: dict[str, Node],
    rows: dict[str, dict], scored: dict, why: dict[str, list[str]], flt: Filters, top_k: int,
    answers: set[str] | frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """The first `top_k` candidates, in order, that are entries (or `answers` of the question's
    relation, e.g. the files changed together with one) and pass the filters.

    `from_nodes` (no vector rows): content from the nodes' own properties, read a window at a time;
    otherwise content and location come from the row, and names later (`attach_details`).
    """
    hits: list[dict[str, Any]] = []
    step = max(top_k, 10)
    for start in range(0, len(order), step):
        window = order[start:start + step]
        nodes = g.nodes(k for k in window if k in sig) if g is not None and from_nodes else sig
        for k in window:
            node, row = nodes.get(k), rows.get(k)
            if node is None and row is None:
                continue
            if not from_nodes and row is None and (node is None or node.vector_id is None) and k not in answers:
                continue  # not an embedded entry (e.g. a File): shown as a neighbour, not as a hit
            rec = _record(k, node, row)
            if not flt.accepts(rec):
                continue
            s = scored[k]
            parts = {"fused": round(s.fused, 6), "centrality": round(s.centrality, 4), "defects": round(s.defects, 4)}
            if s.recency is not None:
                parts["recency"] = round(s.recency, 4)
            rec.update(score=round(s.score, 6), strategy=strategy, why=why.get(k, []), scores=parts)
            hits.append(rec)
            if len(hits) == top_k:
                return hits
    return hits


def attach_details(g: GraphView, hits: list[dict[str, Any]], edges: dict[str, list[Edge]] | None, depth: int,
                   hidden: Collection[str] = ()) -> None:
    """Names of the hits and, when `edges` is given (expansion on), each hit's neighbourhood.

    Code entities, files, commits and bugs are named by their id; what a commit, bug or memory
    shows of itself (message, date, author, title, category) is read in one lookup for all hits.
    No neighbour is one of the `hidden` memories (`ltm.visibility`).
    """
    shown: dict[str, list[Edge]] = {}
    if edges is not None:
        ids = [h["graph_entity_id"] for h in hits if h["graph_entity_id"]]
        todo = [i for i in ids if i not in edges]
        if todo:
            edges = {**edges, **neighbourhood(g, todo, depth, hidden=hidden)}
        shown = {i: _prioritised([e for e in edges.get(i, []) if e.neighbour not in hidden and e.via not in hidden])
                 for i in ids}
    need = [e.neighbour for es in shown.values() for e in es if label_of(e.neighbour) in DETAILED_LABELS]
    own = [h["graph_entity_id"] for h in hits if h["graph_entity_id"] and label_of(h["graph_entity_id"]) in SHOWN_LABELS]
    info = g.details(dict.fromkeys(need + own)) if need or own else {}
    for h in hits:
        present(h, info.get(h["graph_entity_id"]) or {})
        if edges is not None:
            h["neighbours"] = [_neighbour_view(e, info.get(e.neighbour)) for e in shown.get(h["graph_entity_id"], [])]


def present(h: dict[str, Any], d: dict[str, Any]) -> None:
    """The fields a hit shows in every strategy: its short name; a commit's short sha, author, date and
    subject line; a bug's ref and title; a memory's heading; `removed_in` for what left the code."""
    eid, label = h.get("graph_entity_id"), h.get("label")
    if eid:
        h["name"] = short_name(eid) if label != "Memory" else h.get("name")
    if label == "Commit":
        first = (d.get("message") or h.get("content") or "").strip().splitlines()
        h.update(sha=d.get("sha") or name_from_id(eid or "") or None, author=d.get("author_name"),
                 date=_day(d.get("committed_at") or h.get("created_at")), summary=first[0][:120] if first else "")
    elif label == "Bug" and d.get("title"):
        h["name"] = f"{d.get('ref') or h['name']} {d['title'][:80]}"
    elif label == "Memory":
        heading = _HEADING.search(h.get("content") or "")
        h["name"] = heading.group(1).strip() if heading else (d.get("category") or h.get("category") or h.get("name"))
    if d.get("removed_in"):
        h["removed_in"] = d["removed_in"][:10]


def _day(value: Any) -> str | None:
    if isinstance(value, datetime):
        return f"{value:%Y-%m-%d}"
    return str(value)[:10] if value else None


def _prioritised(edges: list[Edge]) -> list[Edge]:
    """The neighbours worth showing first: structure and history before the rest, hop 1 before 2."""
    def key(e: Edge) -> tuple[int, int]:
        return (e.hop, _SHOW_FIRST.index(e.relation) if e.relation in _SHOW_FIRST else len(_SHOW_FIRST))

    seen: set[str] = set()
    unique = [e for e in sorted(edges, key=key) if not (e.neighbour in seen or seen.add(e.neighbour))]
    return unique[:MAX_NEIGHBOURS_SHOWN]


def _neighbour_view(e: Edge, info: dict[str, Any] | None) -> dict[str, Any]:
    info = info or {"label": label_of(e.neighbour), "name": name_from_id(e.neighbour)}
    label = info.get("label")
    name = info.get("qualified_name") or info.get("name") or info.get("path") or info.get("ref") or info.get("category")
    if label in ("Function", "Class") or name is None:
        name = short_name(e.neighbour) if label != "Memory" else name
    if label == "Commit":
        first = (info.get("message") or "").strip().splitlines()
        name = f"{(info.get('sha') or '')[:10]} {first[0][:60] if first else ''}".strip()
        if info.get("committed_at") is not None:
            name += f" ({info['committed_at']:%Y-%m-%d}, {info.get('author_name', '?')})"
    elif label == "Bug" and info.get("title"):
        name = f"{info.get('ref')} {info['title'][:60]}"
    return {"relation": e.relation, "direction": e.direction, "hop": e.hop, "id": e.neighbour,
            "label": label, "name": name, **({"via": e.via} if e.via else {})}
