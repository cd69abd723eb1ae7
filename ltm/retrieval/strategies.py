"""The five retrieval strategies over one home, and the hits they return.

- `vector_only`: LanceDB hybrid search (vector + full text, RRF). Never touches the graph.
- `vector_first`: the same hits, then graph expansion to depth 1-2 (neighbours join as candidates
  with a decayed score) and graph signals in the ranking; every hit carries its neighbourhood.
- `graph_first`: names, properties, authors, bug refs and paths matched in the graph (question
  patterns, Kuzu full text), expanded, then their vector rows for content; vector hits only fill.
- `parallel`: both at once, fused by reciprocal rank, then expansion and ranking.
- `graph_only`: the graph side alone; content from the nodes' own properties, no LanceDB.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

import numpy as np

from ltm.errors import QueryError
from ltm.retrieval.expand import Edge, expansion_scores, neighbourhood
from ltm.retrieval.filters import Filters
from ltm.retrieval.fusion import RRF_K, ranked, rrf
from ltm.retrieval.graph_match import graph_candidates
from ltm.retrieval.graph_side import GraphView, Node
from ltm.retrieval.intent import parse
from ltm.retrieval.ranking import RankingConfig, blend
from ltm.retrieval.vector_side import VectorCandidates, VectorSide
from ltm.schema import NODE_TABLES

Strategy = Literal["vector_first", "graph_first", "parallel", "vector_only", "graph_only"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)
GRAPH_FIRST_VECTOR_WEIGHT = 0.25
MAX_NEIGHBOURS_SHOWN = 12


@dataclass
class Sources:
    """What a query reads: the vector side (None when no vectors), the embedder, the graph (None when no build)."""

    vectors: VectorSide | None
    embed: Callable[[str], np.ndarray]
    graph: Callable[[], GraphView | None]
    config: RankingConfig


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


def _neighbour_view(e: Edge) -> dict[str, Any]:
    info = e.info or {}
    label = info.get("label")
    name = info.get("qualified_name") or info.get("name") or info.get("path") or info.get("ref") or info.get("category")
    if label == "Commit":
        first = (info.get("message") or "").strip().splitlines()
        name = f"{(info.get('sha') or '')[:10]} {first[0][:60] if first else ''}".strip()
        if info.get("committed_at") is not None:
            name += f" ({info['committed_at']:%Y-%m-%d}, {info.get('author_name', '?')})"
    elif label == "Bug" and info.get("title"):
        name = f"{info.get('ref')} {info['title'][:60]}"
    return {"relation": e.relation, "direction": e.direction, "hop": e.hop, "id": e.neighbour,
            "label": label, "name": name, **({"via": e.via} if e.via else {})}


def retrieve(
    src: Sources, text: str, strategy: str = "parallel", top_k: int = 10, expand_graph: bool = True,
    depth: int = 1, filters: Filters | dict | None = None,
) -> list[dict[str, Any]]:
    """Run one strategy; returns up to `top_k` hits, best first (see the module docstring)."""
    if strategy not in STRATEGIES:
        raise QueryError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    if not 1 <= int(top_k) <= 1000:
        raise QueryError(f"top_k {top_k} is out of range: use 1 to 1000")
    if depth not in (1, 2):
        raise QueryError(f"depth {depth} is out of range: use 1 or 2")
    if not text or not text.strip():
        raise QueryError("the query text is empty: pass the question to search for")
    flt = Filters.of(filters)
    intent = parse(text)
    limit = max(3 * top_k, 30)
    use_vectors = strategy != "graph_only" and src.vectors is not None
    g = src.graph() if strategy != "vector_only" else None

    vc = VectorCandidates()
    if use_vectors:
        vc = src.vectors.search(src.embed(text), text, flt, limit)
    fused: dict[str, float] = {}  # both sides are sums of weight / (60 + rank): they add up
    why: dict[str, list[str]] = {}
    for k, r in vc.vector_rank.items():
        why.setdefault(k, []).append(f"vector rank {r}")
    for k, r in vc.text_rank.items():
        why.setdefault(k, []).append(f"full-text rank {r}")
    if strategy == "parallel":  # reciprocal-rank fusion of the vector, full-text and graph rankings
        lists = [(sorted(vc.vector_rank, key=vc.vector_rank.get), 1.0), (sorted(vc.text_rank, key=vc.text_rank.get), 1.0)]
    else:  # the hybrid ranking as one list (its own RRF), graph_first only filling in with it
        w = GRAPH_FIRST_VECTOR_WEIGHT if strategy == "graph_first" else 1.0
        fused.update({k: w * v for k, v in vc.scores.items()})
    subjects: list[str] = []
    if g is not None and strategy in ("graph_first", "parallel", "graph_only"):
        gc = graph_candidates(g, intent, text, flt, limit)
        if strategy == "parallel":
            if gc.answers:  # a question pattern answered: its answers lead, the other graph matches fill
                lists.append((gc.answers, 3.0))
                lists.append(([k for k in ranked(gc.scores) if k not in gc.answers and k not in gc.subjects], 0.5))
            else:
                lists.append((ranked(gc.scores), 1.0))
            fused = rrf(lists)
        else:
            for k, v in gc.scores.items():
                fused[k] = fused.get(k, 0.0) + v
        for k, reason in gc.why.items():
            why.setdefault(k, []).insert(0, f"graph: {reason}")
        subjects = gc.subjects
    elif strategy == "parallel":
        fused = rrf(lists)
    _phrase_boost(text, vc.rows, fused, why)

    edges: dict[str, list[Edge]] = {}
    if g is not None and expand_graph:
        seeds = {k: fused[k] for k in ranked(fused)[: max(top_k, 10)] if ":" in k}
        for s in subjects:
            seeds.setdefault(s, max(fused.values(), default=1.0))
        edges = neighbourhood(g, list(seeds), depth)
        grown, grown_why = expansion_scores(seeds, edges, intent, src.config.expansion_decay)
        for k, s in grown.items():
            if s > fused.get(k, 0.0):  # a neighbour never outranks the hit that reached it
                fused[k] = s
                why.setdefault(k, []).append(f"graph: {grown_why[k]}")

    pool = ranked(fused)[: max(4 * top_k, 40) if flt.active else max(2 * top_k, 20)]
    nodes = g.nodes(pool) if g is not None else {}
    scored = blend({k: fused[k] for k in pool}, nodes, src.config)
    order = sorted(pool, key=lambda k: -scored[k].score)
    if use_vectors:
        missing = [nodes[k].vector_id for k in order if k not in vc.rows and k in nodes and nodes[k].vector_id]
        vc.rows.update(src.vectors.rows(missing))
    hits: list[dict[str, Any]] = []
    for k in order:
        node, row = nodes.get(k), vc.rows.get(k)
        if node is None and row is None:
            continue
        if strategy != "graph_only" and row is None and (node is None or node.vector_id is None):
            continue  # not an embedded entry (e.g. a File): shown as a neighbour, not as a hit
        rec = _record(k, node, row)
        if not flt.accepts(rec):
            continue
        s = scored[k]
        rec.update(score=round(s.score, 6), strategy=strategy, why=why.get(k, []),
                   scores={"fused": round(s.fused, 6), "centrality": round(s.centrality, 4), "defects": round(s.defects, 4)})
        hits.append(rec)
        if len(hits) == top_k:
            break
    if g is not None and expand_graph and hits:
        _attach_neighbours(g, hits, edges, depth)
    return hits


def _phrase_boost(text: str, rows: dict[str, dict], fused: dict[str, float], why: dict[str, list[str]]) -> None:
    """An entry whose content holds the whole question verbatim counts as ranked first in two more lists."""
    phrase = " ".join(text.split()).casefold()
    if len(phrase) < 12:
        return
    for k, row in rows.items():
        if phrase in " ".join((row.get("content") or "").split()).casefold():
            fused[k] = fused.get(k, 0.0) + 2.0 / (RRF_K + 1)
            why.setdefault(k, []).insert(0, "the question appears verbatim in its content")


def _attach_neighbours(g: GraphView, hits: list[dict[str, Any]], edges: dict[str, list[Edge]], depth: int) -> None:
    ids = [h["graph_entity_id"] for h in hits if h["graph_entity_id"]]
    todo = [i for i in ids if i not in edges]
    if todo:
        edges = {**edges, **neighbourhood(g, todo, depth)}
    for h in hits:
        h["neighbours"] = [_neighbour_view(e) for e in _prioritised(edges.get(h["graph_entity_id"], []))]


_SHOW_FIRST = ("CALLS", "HAS_METHOD", "MODIFIES", "FIXES", "AFFECTS", "DEFINED_IN", "BELONGS_TO", "IMPORTS")


def _prioritised(edges: list[Edge]) -> list[Edge]:
    """The neighbours worth showing first: structure and history before the rest, hop 1 before 2."""
    def key(e: Edge) -> tuple[int, int]:
        return (e.hop, _SHOW_FIRST.index(e.relation) if e.relation in _SHOW_FIRST else len(_SHOW_FIRST))

    return sorted(edges, key=key)[:MAX_NEIGHBOURS_SHOWN]
