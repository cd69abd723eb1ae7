"""The five retrieval strategies over one home, and the hits they return.

- `vector_only`: LanceDB hybrid search (vector + full text, RRF). Never touches the graph.
- `vector_first`: the same hits, then graph expansion to depth 1-2 (neighbours join as candidates
  with a decayed score) and graph signals in the ranking; every hit carries its neighbourhood. For
  a history question the commits the expansion reaches through MODIFIES / FIXES, or whose author
  is the one asked about, lead (`answers.py`).
- `graph_first`: names, properties, authors, bug refs and paths matched in the graph (question
  patterns, Kuzu full text), expanded, then their vector rows for content; vector hits only fill.
- `parallel`: both sides at once (LanceDB in a worker thread while Kuzu matches), fused by
  reciprocal rank, then expansion and ranking. graph_first and parallel take the full-text
  ranking from LanceDB (the same texts; Kuzu's index is far slower on common words).
- `graph_only`: the graph side alone; content from the nodes' own properties, no LanceDB.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

import numpy as np

from ltm.errors import QueryError
from ltm.retrieval.answers import history_answers
from ltm.retrieval.expand import Edge, expansion_scores, neighbourhood
from ltm.retrieval.filters import Filters
from ltm.retrieval.fusion import RRF_K, ranked, rrf
from ltm.retrieval.graph_match import GraphCandidates, graph_candidates
from ltm.retrieval.graph_side import GraphView, Node, label_of, name_from_id
from ltm.retrieval.intent import parse
from ltm.retrieval.ranking import RankingConfig, blend
from ltm.retrieval.vector_side import VectorCandidates, VectorSide
from ltm.schema import NODE_TABLES

Strategy = Literal["vector_first", "graph_first", "parallel", "vector_only", "graph_only"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)
GRAPH_FIRST_VECTOR_WEIGHT = 0.25
MAX_NEIGHBOURS_SHOWN = 12
ANSWER_LEAD = 1.2  # a history answer's score over the best seed's: ahead of it and of graph signals
DETAILED_LABELS = ("Commit", "Bug", "Memory")  # neighbours shown with more than their id says


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


def _neighbour_view(e: Edge, info: dict[str, Any] | None) -> dict[str, Any]:
    info = info or {"label": label_of(e.neighbour), "name": name_from_id(e.neighbour)}
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
    vc, gc = _candidates(src, g, strategy, intent, text, flt, limit, use_vectors)

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
    if gc is not None:
        text_list = _text_list(gc, vc)
        if strategy == "parallel":
            if gc.answers:  # a question pattern answered: its answers lead, the other graph matches fill
                lists.append((gc.answers, 3.0))
                lists.append(([k for k in ranked(gc.scores) if k not in gc.answers and k not in gc.subjects], 0.5))
            else:
                lists.append((ranked(gc.scores), 1.0))
            if text_list:
                lists.append((text_list, 1.0))
            fused = rrf(lists)
        else:
            for k, v in gc.scores.items():
                fused[k] = fused.get(k, 0.0) + v
            for k, v in rrf([(text_list, 1.0)]).items():
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
        if strategy == "vector_first":  # except the answer to a history question, found in the expansion
            answers, because = history_answers(g, intent, list(seeds), edges)
            top = max(fused.values(), default=1.0)
            for rank, k in enumerate(answers):
                fused[k] = top * (ANSWER_LEAD + 0.05 * (len(answers) - rank) / len(answers))
                why.setdefault(k, []).insert(0, f"graph: {because}")

    pool = ranked(fused)[: max(4 * top_k, 40) if flt.active else max(2 * top_k, 20)]
    sig = g.signals(pool) if g is not None else {}
    scored = blend({k: fused[k] for k in pool}, sig, src.config)
    order = sorted(pool, key=lambda k: -scored[k].score)
    if use_vectors:
        missing = [sig[k].vector_id for k in order if k not in vc.rows and k in sig and sig[k].vector_id]
        vc.rows.update(src.vectors.rows(missing))
    hits = _hits(g, strategy, order, sig, vc.rows, scored, why, flt, top_k)
    if g is not None and hits:
        _attach_details(g, hits, edges if expand_graph else None, depth)
    return hits


def _text_list(gc: GraphCandidates, vc: VectorCandidates) -> list[str]:
    """For a plain search, the graph entities of LanceDB's full-text ranking (its "full-text rank"
    reason says so), standing in for the graph side's own full-text list."""
    if not gc.wants_text:
        return []
    return [k for k in sorted(vc.text_rank, key=vc.text_rank.get)
            if ":" in k and (gc.text_labels is None or label_of(k) in gc.text_labels)]


def _candidates(
    src: Sources, g: GraphView | None, strategy: str, intent, text: str, flt: Filters, limit: int, use_vectors: bool,
) -> tuple[VectorCandidates, GraphCandidates | None]:
    """The vector side and the graph side's matches; when a strategy needs both, they run at once."""
    want_graph = g is not None and strategy in ("graph_first", "parallel", "graph_only")

    def vector_side() -> VectorCandidates:
        return src.vectors.search(src.embed(text), text, flt, limit)

    if use_vectors and want_graph:  # LanceDB and Kuzu both release the GIL while they work
        with ThreadPoolExecutor(max_workers=1) as pool:
            fut = pool.submit(vector_side)
            gc = graph_candidates(g, intent, text, flt, limit, full_text=False)  # LanceDB's full text serves both
            return fut.result(), gc
    vc = vector_side() if use_vectors else VectorCandidates()
    return vc, graph_candidates(g, intent, text, flt, limit) if want_graph else None


def _hits(
    g: GraphView | None, strategy: str, order: list[str], sig: dict[str, Node], rows: dict[str, dict],
    scored: dict, why: dict[str, list[str]], flt: Filters, top_k: int,
) -> list[dict[str, Any]]:
    """The first `top_k` candidates, in order, that are entries and pass the filters.

    graph_only has no vector rows, so it reads the nodes' own properties, a window at a time;
    the others take content and location from the row, and names later (`_attach_details`).
    """
    hits: list[dict[str, Any]] = []
    step = max(top_k, 10)
    for start in range(0, len(order), step):
        window = order[start:start + step]
        nodes = g.nodes(k for k in window if k in sig) if g is not None and strategy == "graph_only" else sig
        for k in window:
            node, row = nodes.get(k), rows.get(k)
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
                return hits
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


def _attach_details(g: GraphView, hits: list[dict[str, Any]], edges: dict[str, list[Edge]] | None, depth: int) -> None:
    """Names of the hits and, when `edges` is given (expansion on), each hit's neighbourhood.

    Code entities, files, commits and bugs are named by their id; what a commit, bug or memory
    shows of itself (message, date, author, title, category) is read in one lookup for all hits.
    """
    shown: dict[str, list[Edge]] = {}
    if edges is not None:
        ids = [h["graph_entity_id"] for h in hits if h["graph_entity_id"]]
        todo = [i for i in ids if i not in edges]
        if todo:
            edges = {**edges, **neighbourhood(g, todo, depth)}
        shown = {i: _prioritised(edges.get(i, [])) for i in ids}
    for h in hits:
        if h["name"] is None and h["graph_entity_id"]:
            h["name"] = name_from_id(h["graph_entity_id"]) or (h["category"] if h["label"] == "Memory" else None)
    need = [e.neighbour for es in shown.values() for e in es if label_of(e.neighbour) in DETAILED_LABELS]
    info = g.details(need) if need else {}
    for h in hits:
        if edges is not None:
            h["neighbours"] = [_neighbour_view(e, info.get(e.neighbour)) for e in shown.get(h["graph_entity_id"], [])]


_SHOW_FIRST = ("CALLS", "HAS_METHOD", "MODIFIES", "FIXES", "AFFECTS", "DEFINED_IN", "BELONGS_TO", "IMPORTS")


def _prioritised(edges: list[Edge]) -> list[Edge]:
    """The neighbours worth showing first: structure and history before the rest, hop 1 before 2."""
    def key(e: Edge) -> tuple[int, int]:
        return (e.hop, _SHOW_FIRST.index(e.relation) if e.relation in _SHOW_FIRST else len(_SHOW_FIRST))

    return sorted(edges, key=key)[:MAX_NEIGHBOURS_SHOWN]
