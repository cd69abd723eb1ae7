"""The five retrieval strategies, as data: what each reads and how it fuses (`retrieve.py` runs them).

- `vector_only`: LanceDB hybrid search (vector + full text, RRF). Never touches the graph.
- `vector_first`: the same hits, then graph expansion to depth 1-2 (neighbours join as candidates
  with a decayed score) and graph signals in the ranking; every hit carries its neighbourhood. For
  a history question the commits the expansion reaches through MODIFIES / FIXES, or whose author
  is the one asked about, lead (`answers.py`).
- `graph_first`: names, properties, authors, bug refs and paths matched in the graph (question
  patterns, name words), expanded, then their vector rows for content; vector hits only fill.
- `parallel`: both sides at once (LanceDB in a worker thread while Kuzu matches), fused by
  reciprocal rank, then expansion and ranking. A plain search that asks for code
  (`retrieve.asks_for_code`) also fuses the vector ranking among functions and classes alone:
  prose sits nearer a question in words than any source text does.
- `graph_only`: the graph side alone, no vector search; content from the nodes' own properties.

Every strategy that matches in the graph takes the full-text ranking of messages, titles and
memory text from LanceDB's index on the same texts (`graph_full_text`; graph_only reads it alone,
`VectorSide.text_search`): a build makes no full-text index of its own, on either engine (Kuzu's
took a third of a build, and graph_only finds more with LanceDB's, which covers code text too:
BENCHMARKS.md; LadybugDB's would download itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# LanceDB's vector and full-text rankings; the graph matches (a question pattern's answers ahead);
# the graph entities of LanceDB's full-text ranking (the graph's own full text); LanceDB's
# vector ranking of functions and classes alone, for a search that asks for code (`retrieve.py`).
Ranking = Literal["vector", "full_text", "graph", "graph_full_text", "code_vector"]


@dataclass(frozen=True)
class Strategy:
    """What one strategy reads and how it fuses what it found.

    `rrf_of`: the rankings fused by reciprocal rank, in order. Empty: the scores are added instead,
    the hybrid search's (its own RRF) times `vector_weight`, the graph matches' and `graph_full_text`.
    """

    name: str
    vectors: bool  # LanceDB hybrid search (vector + full text), when the home has vectors
    graph: bool  # the build: expansion, ranking signals, names and neighbours
    match: bool  # the question matched in the graph (`graph_match.py`)
    rrf_of: tuple[Ranking, ...] = ()
    vector_weight: float = 1.0
    answers_lead: bool = False  # history answers found by the expansion go ahead of every seed
    from_nodes: bool = False  # hits take content from the nodes' properties, not from vector rows


TABLE: dict[str, Strategy] = {s.name: s for s in (
    Strategy("vector_first", vectors=True, graph=True, match=False, answers_lead=True),
    Strategy("graph_first", vectors=True, graph=True, match=True, vector_weight=0.25),
    Strategy("parallel", vectors=True, graph=True, match=True,
             rrf_of=("vector", "full_text", "graph", "graph_full_text", "code_vector")),
    Strategy("vector_only", vectors=True, graph=False, match=False),
    Strategy("graph_only", vectors=False, graph=True, match=True, from_nodes=True),
)}
STRATEGIES: tuple[str, ...] = tuple(TABLE)
