"""`retrieve`: one strategy (`strategies.py`) run over one home, and the hits it returns, best first."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ltm.errors import QueryError
from ltm.graph.entity_ids import label_of
from ltm.graph.view import GraphView
from ltm.retrieval.answers import history_answers
from ltm.retrieval.expand import Edge, expansion_scores, neighbourhood
from ltm.retrieval.filters import Filters
from ltm.retrieval.fusion import RRF_K, ranked, rrf
from ltm.retrieval.graph_match import GraphCandidates, entity_callers, entity_history, graph_candidates
from ltm.retrieval.hits import attach_details, select_hits
from ltm.retrieval.intent import Intent, parse
from ltm.retrieval.priors import factor as prior
from ltm.retrieval.ranking import RankingConfig, blend
from ltm.retrieval.strategies import STRATEGIES, TABLE, Strategy
from ltm.retrieval.superseded import Superseded
from ltm.retrieval.vector_side import VectorCandidates, VectorSide
from ltm.visibility import Scope

# a relation question's subject, by what it must name (said when no candidate name exists in the graph)
RELATION_KINDS = {
    "callers": "function or module", "callees": "function", "importers": "module or function", "imports": "module",
    "subclasses": "class", "bases": "class", "methods": "class", "modified_by": "function, class or file",
    "introduced_by": "function, class or file", "co_changed": "function, class or file",
    "last_change": "function, class or file",
}
ANSWER_LEAD = 1.2  # a history answer's score over the best fused hit's: ahead of it and of graph signals
ORDERED_ANSWERS = ("last_change", "introduced_by", "modified_by")  # answers ordered by date in the graph
DESCRIBED_HISTORY = {"introduced_by": "introduced", "modified_by": "modified", "last_change": "last changed"}
CODE_LABELS = ("Function", "Class")  # what a question asking for code is answered by
DESCRIBED_SUBJECTS = 3  # code hits that stand in for a subject the question describes instead of naming
DESCRIBED_CANDIDATES = 10  # the function hits searched for the callers of a described subject
# How deep each ranking is read and how many fused candidates are re-scored, whatever `top_k` is
# (up to these): so a top-3 query's hits are the first three of a top-30 query's.
CANDIDATES = 30
POOL = 60


@dataclass
class Sources:
    """What a query reads: the vector side (None when no vectors), the embedder, the graph (None when no build)."""

    vectors: VectorSide | None
    embed: Callable[[str], np.ndarray]
    graph: Callable[[], GraphView | None]
    config: RankingConfig
    superseded: Callable[[], Superseded | None] | None = None  # memories a newer one supersedes


def retrieve(
    src: Sources, text: str, strategy: str = "parallel", top_k: int = 10, expand_graph: bool = True,
    depth: int = 1, filters: Filters | dict | None = None, include_superseded: bool = False,
    scope: Scope | None = None,
) -> list[dict[str, Any]]:
    """Run one strategy; returns up to `top_k` hits, best first (see `strategies.py`).

    A memory a newer one supersedes is left out, the newest of its chain taking its place, unless
    `include_superseded` (then it is shown after the newest, with `superseded_by`).
    `scope` (default: namespace `shared`, no agent; `ltm.visibility`): the memories it may not see
    are prefiltered out of LanceDB, kept out of the graph's matches by Kuzu parameters, never
    reached by expansion nor shown as a neighbour, and every hit is checked again.
    """
    if strategy not in STRATEGIES:
        raise QueryError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    if not 1 <= int(top_k) <= 1000:
        raise QueryError(f"top_k {top_k} is out of range: use 1 to 1000")
    if depth not in (1, 2):
        raise QueryError(f"depth {depth} is out of range: use 1 or 2")
    if not text or not text.strip():
        raise QueryError("the query text is empty: pass the question to search for")
    spec = TABLE[strategy]
    flt = Filters.of(filters)
    intent = parse(text)
    limit = max(top_k, CANDIDATES)
    use_vectors = spec.vectors and src.vectors is not None
    g = src.graph() if spec.graph else None
    scope = scope or Scope.of()
    hidden = g.hidden_memories(scope) if g is not None else set()
    code = CODE_LABELS if "code_vector" in spec.rrf_of and asks_for_code(intent) else ()
    vc, gc = _candidates(src, g if spec.match else None, spec, intent, text, flt, limit, use_vectors, scope, code)
    if gc is not None and hidden:
        _drop_hidden(gc, hidden)

    why: dict[str, list[str]] = {}
    for k, r in vc.vector_rank.items():
        why.setdefault(k, []).append(f"vector rank {r}")
    for k, r in vc.text_rank.items():
        why.setdefault(k, []).append(f"full-text rank {r}")
    for k, r in vc.code_rank.items():
        why.setdefault(k, []).append(f"vector rank {r} among code")
    fused = _fuse(spec, vc, gc)  # every part is a sum of weight / (60 + rank): they add up
    subjects: list[str] = []
    if gc is not None:
        for k, reason in gc.why.items():
            why.setdefault(k, []).insert(0, f"graph: {reason}")
        subjects = gc.subjects
        if gc.subject and gc.subject != intent.subject:
            intent = replace(intent, subject=gc.subject)  # the candidate name the graph knows
    _phrase_boost(text, vc.rows, fused, why)
    described = False
    if g is not None and gc is not None and gc.subject is None and intent.kind in DESCRIBED_HISTORY and not intent.explains:
        described = _history_of_described(g, intent, flt, fused, why)
    elif g is not None and gc is not None and intent.described in ("callers", "callees"):
        described = _calls_of_described(g, intent.described == "callees", flt, fused, why)

    edges: dict[str, list[Edge]] = {}
    if g is not None and expand_graph:
        seeds = {k: fused[k] for k in ranked(fused)[: max(top_k, 10)] if ":" in k}
        for s in subjects:
            seeds.setdefault(s, max(fused.values(), default=1.0))
        edges = neighbourhood(g, list(seeds), depth, hidden=hidden)
        grown, grown_why = expansion_scores(seeds, edges, intent, src.config.expansion_decay)
        for k, s in grown.items():
            if s > fused.get(k, 0.0):  # a neighbour never outranks the hit that reached it
                fused[k] = s
                why.setdefault(k, []).append(f"graph: {grown_why[k]}")
        if spec.answers_lead:  # except the answer to a history question, found in the expansion
            answers, because = history_answers(g, intent, list(seeds), edges)
            _lead(fused, why, answers, f"graph: {because}")

    sup = src.superseded() if src.superseded is not None else None
    if sup is not None and sup.by:
        _current_versions(sup, fused, why, include_superseded)
    pool = ranked(fused)[: max(4 * top_k, 2 * POOL) if flt.active else max(2 * top_k, POOL)]
    sig = g.signals(pool) if g is not None else {}
    dates = {k: vc.rows[k].get("created_at") for k in pool if k in vc.rows and vc.rows[k].get("label") == "Memory"}
    scored = blend({k: fused[k] for k in pool}, sig, src.config, dates)
    scored = {k: replace(v, score=v.score * prior(k, intent, sig.get(k))) for k, v in scored.items()}
    order = [k for k in sorted(pool, key=lambda k: -scored[k].score) if k not in hidden]
    if gc is not None and intent.kind in ORDERED_ANSWERS:
        _keep_answer_order(order, scored, gc.answers)
    if use_vectors:
        missing = [sig[k].vector_id for k in order if k not in vc.rows and k in sig and sig[k].vector_id]
        vc.rows.update(src.vectors.rows(missing, scope))
    order = [k for k in order if k not in vc.rows or scope.sees_row(vc.rows[k])]
    hits = select_hits(g, spec.name, spec.from_nodes, order, sig, vc.rows, scored, why, flt, top_k,
                       frozenset(gc.answers) if gc is not None else frozenset())
    if g is not None and hits:
        attach_details(g, hits, edges if expand_graph else None, depth, hidden)
    if sup is not None and sup.by:
        for h in hits:
            if h["graph_entity_id"] in sup:
                h["superseded_by"] = sup.by[h["graph_entity_id"]]
    if gc is not None and intent.kind in RELATION_KINDS and gc.subject is None and intent.candidates and not described:
        notice = (f"no {RELATION_KINDS[intent.kind]} named {intent.candidates[0]!r} in this home: "
                  "these hits are a plain search for the question's words")
        for h in hits:
            h["notice"] = notice
    return hits


def asks_for_code(intent: Intent) -> bool:
    """A plain search that asks where / which function does something, or describes a behaviour
    without saying when, who or what the team decided: the code that does it is the answer."""
    return intent.kind == "search" and intent.prefer not in ("history", "memory")


def _current_versions(sup: Superseded, fused: dict[str, float], why: dict[str, list[str]], keep_old: bool) -> None:
    """The newest memory of each chain takes the best score of the versions it supersedes (just
    ahead of them); the older versions leave unless `keep_old`."""
    for k in [k for k in fused if k in sup]:
        new = sup.newest(k)
        if new == k:
            continue
        if fused[k] * 1.001 > fused.get(new, 0.0):
            fused[new] = fused[k] * 1.001
            why.setdefault(new, []).append(f"current version of {k}")
        if not keep_old:
            del fused[k]


def _drop_hidden(gc: GraphCandidates, hidden: set[str]) -> None:
    """The graph's matches without the memories the scope may not see (whatever query found them)."""
    gc.scores = {k: v for k, v in gc.scores.items() if k not in hidden}
    gc.why = {k: v for k, v in gc.why.items() if k not in hidden}
    gc.subjects = [k for k in gc.subjects if k not in hidden]
    gc.answers = [k for k in gc.answers if k not in hidden]


def _history_of_described(g: GraphView, intent: Intent, flt: Filters, fused: dict[str, float],
                          why: dict[str, list[str]]) -> bool:
    """"Which commit added the helper that masks the header?": no name, so the code the question
    describes (the best function or class hits) stands in for it, and its commits lead."""
    code = [k for k in ranked(fused) if label_of(k) in ("Function", "Class")][:DESCRIBED_SUBJECTS]
    if not code:
        return False
    commits = entity_history(g, code, intent.kind, flt)
    _lead(fused, why, commits, f"graph: {DESCRIBED_HISTORY[intent.kind]} the code the question describes")
    return bool(commits)


def _calls_of_described(g: GraphView, reverse: bool, flt: Filters, fused: dict[str, float],
                        why: dict[str, list[str]]) -> bool:
    """"Who calls the function that parses the header?": no name, so the functions the question
    describes (the best function hits) stand in for it, and what calls them (`reverse`: what they
    call) leads, the callers of the best hit first."""
    # the best function hits that have callers (a question asks for the callers of one that has some)
    code = [k for k in ranked(fused) if label_of(k) == "Function"][:DESCRIBED_CANDIDATES]
    pairs = entity_callers(g, code, reverse, flt, limit=30) if code else []
    targets = list(dict.fromkeys(t for _, t in pairs))[:DESCRIBED_SUBJECTS]
    pairs = [(c, t) for c, t in pairs if t in targets][:10]
    if not pairs:
        return False
    verb = "called by" if reverse else "calls"
    _lead(fused, why, [c for c, _ in pairs],
          {c: f"graph: {verb} {t.rsplit(':', 1)[-1]}, the code the question describes" for c, t in pairs})
    return True


def _keep_answer_order(order: list[str], scored: dict, answers: list[str]) -> None:
    """The answers of an ordered relation ("the last commit that changed X": newest first) keep the
    graph's order among themselves: the places they won in `order` are refilled in that order, and
    so are their scores (graph signals such as a commit's centrality must not reorder a history)."""
    ranked_answers = [k for k in answers if k in scored]
    places = [i for i, k in enumerate(order) if k in set(ranked_answers)]
    scores = sorted((scored[order[i]].score for i in places), reverse=True)
    for i, k, score in zip(places, ranked_answers, scores):
        order[i] = k
        scored[k] = replace(scored[k], score=score)


def _lead(fused: dict[str, float], why: dict[str, list[str]], answers: list[str],
          because: str | dict[str, str]) -> None:
    """Put `answers` ahead of every fused hit, in their order, saying why (one reason, or one per answer)."""
    top = max(fused.values(), default=1.0)
    for rank, k in enumerate(answers):
        fused[k] = top * (ANSWER_LEAD + 0.05 * (len(answers) - rank) / len(answers))
        why.setdefault(k, []).insert(0, because if isinstance(because, str) else because[k])


def _fuse(spec: Strategy, vc: VectorCandidates, gc: GraphCandidates | None) -> dict[str, float]:
    """One score per candidate: reciprocal-rank fusion of `spec.rrf_of`, or the sum of the parts."""
    text_list = _text_list(gc, vc) if gc is not None else []
    if spec.rrf_of:
        lists: dict[str, list[tuple[list[str], float]]] = {
            "vector": [(sorted(vc.vector_rank, key=vc.vector_rank.get), 1.0)],
            "full_text": [(sorted(vc.text_rank, key=vc.text_rank.get), 1.0)],
            "graph": _graph_lists(gc) if gc is not None else [],
            "graph_full_text": [(text_list, 1.0)] if text_list else [],
            "code_vector": [(sorted(vc.code_rank, key=vc.code_rank.get), 1.0)] if vc.code_rank else [],
        }
        return rrf([lst for name in spec.rrf_of for lst in lists[name]])
    fused = {k: spec.vector_weight * v for k, v in vc.scores.items()}
    if gc is not None:
        for k, v in gc.scores.items():
            fused[k] = fused.get(k, 0.0) + v
        for k, v in rrf([(text_list, 1.0)]).items():
            fused[k] = fused.get(k, 0.0) + v
    return fused


def _graph_lists(gc: GraphCandidates) -> list[tuple[list[str], float]]:
    """The graph ranking for RRF: a question pattern's answers lead, the other graph matches fill."""
    if gc.answers:
        return [(gc.answers, 3.0), ([k for k in ranked(gc.scores) if k not in gc.answers and k not in gc.subjects], 0.5)]
    return [(ranked(gc.scores), 1.0)]


def _text_list(gc: GraphCandidates, vc: VectorCandidates) -> list[str]:
    """For a plain search, the graph entities of LanceDB's full-text ranking (its "full-text rank"
    reason says so), standing in for the graph side's own full-text list."""
    if not gc.wants_text:
        return []
    return [k for k in sorted(vc.text_rank, key=vc.text_rank.get)
            if ":" in k and (gc.text_labels is None or label_of(k) in gc.text_labels)]


def _candidates(
    src: Sources, g: GraphView | None, spec: Strategy, intent: Intent, text: str, flt: Filters, limit: int,
    use_vectors: bool, scope: Scope, code_labels: tuple[str, ...] = (),
) -> tuple[VectorCandidates, GraphCandidates | None]:
    """The vector side and, when `g` is given, the graph side's matches; when both, they run at once."""

    def vector_side() -> VectorCandidates:
        return src.vectors.search(src.embed(text), text, flt, limit, scope, code_labels)

    if use_vectors and g is not None:  # LanceDB and the graph engine both release the GIL while they work
        with ThreadPoolExecutor(max_workers=1) as pool:
            fut = pool.submit(vector_side)
            gc = graph_candidates(g, intent, text, flt, limit, scope=scope)
            return fut.result(), gc
    if not use_vectors and g is not None and src.vectors is not None:
        # graph_only: a build has no full-text index; LanceDB's, over the same texts, stands in for it.
        return (src.vectors.text_search(text, flt, limit, scope),
                graph_candidates(g, intent, text, flt, limit, scope=scope))
    vc = vector_side() if use_vectors else VectorCandidates()
    return vc, graph_candidates(g, intent, text, flt, limit, scope=scope) if g is not None else None


def _phrase_boost(text: str, rows: dict[str, dict], fused: dict[str, float], why: dict[str, list[str]]) -> None:
    """An entry whose content holds the whole question verbatim counts as ranked first in two more lists."""
    phrase = " ".join(text.split()).casefold()
    if len(phrase) < 12:
        return
    for k, row in rows.items():
        if phrase in " ".join((row.get("content") or "").split()).casefold():
            fused[k] = fused.get(k, 0.0) + 2.0 / (RRF_K + 1)
            why.setdefault(k, []).insert(0, "the question appears verbatim in its content")
