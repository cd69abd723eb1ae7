"""Graph expansion: the neighbourhood of hits to depth 1 or 2, as new candidates and as context.

An expanded neighbour inherits `decay ** hop` of its seed's score, times a relation weight that
favours the edges the question is about (callers for "what calls X", MODIFIES for "who changed").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

from ltm.graph.entity_ids import short_name
from ltm.graph.view import GraphView
from ltm.retrieval.intent import Intent

# (relation, direction from the seed) the question kinds care about.
PREFERRED: dict[str, set[tuple[str, str]]] = {
    "callers": {("CALLS", "in")},
    "callees": {("CALLS", "out")},
    "importers": {("IMPORTS", "in"), ("DEPENDS_ON", "in"), ("BELONGS_TO", "in"), ("CALLS", "in")},
    "imports": {("IMPORTS", "out"), ("DEPENDS_ON", "out")},
    "subclasses": {("EXTENDS", "in"), ("IMPLEMENTS", "in")},
    "bases": {("EXTENDS", "out"), ("IMPLEMENTS", "out")},
    "methods": {("HAS_METHOD", "out")},
    "last_change": {("MODIFIES", "in")},
    "modified_by": {("MODIFIES", "in")},
    "introduced_by": {("MODIFIES", "in")},
    "co_changed": {("MODIFIES", "in")},
    "bugfix": {("FIXES", "in"), ("FIXES", "out"), ("AFFECTS", "out"), ("MODIFIES", "out")},
    "file_memories": {("RELATES_TO_FILE", "in"), ("RELATES_TO_FUNCTION", "in"), ("RELATES_TO_CLASS", "in")},
    "author": set(),
    # a plain search (a bug report, a described behaviour): the commits and bug reports its words
    # find stand for a fix, and the code they changed or affected is what it is about
    "search": {("MODIFIES", "out"), ("AFFECTS", "out")},
}
OTHER_RELATION_WEIGHT = 0.3


@dataclass(frozen=True)
class Edge:
    """One step of a hit's neighbourhood: seed -[relation]- neighbour, `via` for the second hop."""

    hop: int
    relation: str
    direction: str
    neighbour: str
    via: str | None = None


def neighbourhood(g: GraphView, seeds: list[str], depth: int, per_node: int = 25,
                  hidden: Collection[str] = ()) -> dict[str, list[Edge]]:
    """seed -> edges to its neighbours within `depth` (1 or 2) hops, excluding the seed itself and
    the `hidden` memories (not reached, nor walked through: `GraphView.hidden_memories`)."""
    first = g.neighbours(seeds, 2 * per_node)
    out: dict[str, list[Edge]] = defaultdict(list)
    for s in seeds:
        out[s] = [Edge(1, rel, d, n) for rel, d, n in first.get(s, []) if n != s and n not in hidden]
    if depth >= 2:
        mids = list(dict.fromkeys(e.neighbour for s in seeds for e in out[s]))
        second = g.neighbours(mids, 2 * per_node) if mids else {}
        for s in seeds:
            seen = {s} | {e.neighbour for e in out[s]}
            for e in list(out[s]):
                for rel, d, n in second.get(e.neighbour, [])[:per_node]:
                    if n not in seen and n not in hidden:
                        seen.add(n)
                        out[s].append(Edge(2, rel, d, n, via=e.neighbour))
    return out


def expansion_scores(
    seeds: dict[str, float], edges: dict[str, list[Edge]], intent: Intent, decay: float
) -> tuple[dict[str, float], dict[str, str]]:
    """Scores of neighbours reached from scored seeds, and why each was reached."""
    preferred = PREFERRED.get(intent.kind, set())
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, str] = {}
    for seed, s in seeds.items():
        for e in edges.get(seed, []):
            weight = 1.0 if (e.relation, e.direction) in preferred else OTHER_RELATION_WEIGHT
            gain = s * (decay ** e.hop) * weight
            if gain > scores[e.neighbour]:
                why[e.neighbour] = f"{_phrase(e)} {short_name(seed)}" + (f" (via {short_name(e.via)})" if e.via else "")
            scores[e.neighbour] = max(scores[e.neighbour], gain)
    return dict(scores), why


def _phrase(e: Edge) -> str:
    """How the neighbour relates to the seed, in words (`in`: the neighbour points at the seed)."""
    verbs = {
        ("CALLS", "in"): "calls", ("CALLS", "out"): "called by", ("MODIFIES", "in"): "modified",
        ("MODIFIES", "out"): "modified by",
        ("HAS_METHOD", "in"): "class of", ("HAS_METHOD", "out"): "method of", ("FIXES", "in"): "fixes",
        ("FIXES", "out"): "fixed by", ("AFFECTS", "out"): "affected by", ("DEFINED_IN", "out"): "file of",
        ("DEFINED_IN", "in"): "defined in", ("IMPORTS", "in"): "imports",
    }
    return verbs.get((e.relation, e.direction), f"{e.relation} {'from' if e.direction == 'in' else 'to'}")
