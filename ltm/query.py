"""Retrieval: `HybridLTM(home).query(text, strategy=...)` over both halves of the memory.

A thin class: the strategies live in `ltm.retrieval`. The query is embedded with the model
recorded on the vector table, never another.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ltm.embed.base import Embedder
from ltm.embed.registry import embedder_for_model
from ltm.errors import NotIngestedError
from ltm.graph.read import CurrentGraph, lake_root
from ltm.home import Home
from ltm.retrieval.filters import Filters
from ltm.retrieval.ranking import RankingConfig
from ltm.retrieval.retrieve import Sources, retrieve
from ltm.retrieval.superseded import Superseded
from ltm.retrieval.vector_side import VectorSide
from ltm.vectors import VectorStore
from ltm.visibility import COLUMNS as SCOPE_COLUMNS, Scope


class HybridLTM:
    """The retrieval API over one home."""

    def __init__(self, home: str | Path | Home | None = None):
        self.home = home if isinstance(home, Home) else Home.resolve(home).require()
        self.vectors = VectorStore(self.home.vectors)
        self._embedder: Embedder | None = None
        self._embedder_for: tuple[str, int] | None = None
        self._graph: CurrentGraph | None = None
        self._sources_cache: Sources | None = None
        self._superseded = Superseded(lake_root(self.home.graph))

    def _query_embedder(self) -> Embedder:
        meta = self.vectors.model()
        if meta is None:
            raise NotIngestedError(f"no vectors in {self.home.root}: run `ltm ingest PATH` first")
        if self._embedder is None or self._embedder_for != (meta["model"], meta["dim"]):
            self._embedder = embedder_for_model(meta["model"], meta["dim"])  # the table's model, after a switch too
            self._embedder_for = (meta["model"], meta["dim"])
        return self._embedder

    def _sources(self) -> Sources:
        if self._sources_cache is None:
            self._graph = CurrentGraph(self.home.graph)
            self._sources_cache = Sources(
                vectors=None, embed=lambda t: self._query_embedder().embed([t])[0],
                graph=self._graph.view, config=RankingConfig.load(self.home.settings().ranking),
                superseded=self._superseded.refresh,
            )
        src = self._sources_cache
        if src.vectors is None and self.vectors.exists():
            src.vectors = VectorSide(self.vectors)
        return src

    def query(
        self, text: str, strategy: str = "parallel", top_k: int = 10, expand_graph: bool = True,
        depth: int = 1, filters: Filters | dict | None = None, include_superseded: bool = False,
        namespace: str | None = None, agent_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """Up to `top_k` hits for `text`, best first, by one of the five strategies.

        Each hit: graph_entity_id, vector_id, label, name, category, repo, file_path, line_start,
        line_end, created_at, content, score, scores (fused, centrality, defects), why (the reasons
        it matched) and, when `expand_graph`, neighbours to `depth` 1 or 2. `filters`: repo,
        category, path_prefix, since, until. An empty store answers []. See `ltm.retrieval`.
        A memory a newer one supersedes (`ltm.memory.evolution`) is left out, its newest version
        standing in, unless `include_superseded`; shown, it carries `superseded_by`.
        `namespace` (default `shared`) and `agent_id`: who asks; memories of another namespace, other
        agents' private memories and expired memories are never returned, not even as neighbours
        (`ltm.visibility`).
        """
        scope = Scope.of(namespace, agent_id)
        return retrieve(self._sources(), text, strategy, top_k, expand_graph, depth, filters, include_superseded, scope)

    def memories(self, ids: Iterable[str], namespace: str | None = None, agent_id: str | None = None) -> list[dict[str, Any]]:
        """The memories with these ids (superseded ones too), in order, unknown ids and those the scope
        may not see (`namespace`, `agent_id`: as in `query`) left out: id, content, memory_type,
        category, created_at and `superseded_by` (None when current)."""
        scope = Scope.of(namespace, agent_id)
        ids = list(dict.fromkeys(ids))
        view = self._sources().graph()
        sup = self._superseded.refresh()
        found: dict[str, dict[str, Any]] = {}
        if view is not None:
            ov = view.overlay
            for i in ids:
                if ov is not None and i in ov:
                    found[i] = dict(ov.memories[i])
            cols = [c for c in SCOPE_COLUMNS if view.has("Memory", c)]
            rows = view.run("MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id, m.content, m.memory_type, m.category, "
                            "m.created_at" + "".join(f", m.{c}" for c in cols), {"ids": [i for i in ids if i not in found]})
            for i, content, mtype, cat, created, *scoped in rows:
                found[i] = {"id": i, "content": content, "memory_type": mtype, "category": cat, "created_at": created,
                            **dict(zip(cols, scoped))}
        found = {i: row for i, row in found.items() if scope.sees_row(row)}
        return [{"graph_entity_id": i, "content": found[i].get("content"), "memory_type": found[i].get("memory_type"),
                 "category": found[i].get("category"), "created_at": found[i].get("created_at"),
                 "superseded_by": sup.by.get(i)} for i in ids if i in found]

    def close(self) -> None:
        """Release the graph connection (also done when the object is collected)."""
        if self._graph is not None:
            self._graph.close()

    def __enter__(self) -> "HybridLTM":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, content: str, metadata: dict[str, Any] | None = None, namespace: str | None = None,
            agent_id: str | None = None) -> dict[str, Any]:
        """Store one memory online; returns {"vector_id", "graph_entity_id", ...} (`ltm.memory.online`).

        Its namespace and agent: metadata `namespace` / `agent_id` (with `private: true`, only that agent
        sees it), else the arguments, else `shared` and none; `expires_at` in metadata, or the default
        TTL of working and sensory memories (`ltm.memory.expiry`).
        """
        from ltm.memory.online import add_memories

        return add_memories(self.home, [(content, metadata)], namespace, agent_id)[0]

    def add_many(self, entries: Iterable[tuple[str, dict[str, Any] | None]], namespace: str | None = None,
                 agent_id: str | None = None) -> list[dict[str, Any]]:
        """Store several (content, metadata) memories as one add; one result per entry, in order.

        About as fast as a single `add` for a handful of entries (one lake commit, one vector write); a bad
        entry refuses the batch, naming it, before anything is written (`ltm.memory.online.add_memories`).
        """
        from ltm.memory.online import add_memories

        return add_memories(self.home, entries, namespace, agent_id)

    def conversations(self, file: str, action: str = "edit", namespace: str | None = None,
                      agent_id: str | None = None) -> list[dict[str, Any]]:
        """The conversations whose agent turns edited (`read`, `any`) `file`, with what the user asked.

        One graph query over the conversation graph of TraceMem imports (`ltm.retrieval.conversations`,
        which describes each entry); [] when no conversation touched the file. A conversation with a
        turn `namespace` / `agent_id` may not see (`ltm.visibility`) is left out whole.
        """
        scope = Scope.of(namespace, agent_id)
        from ltm.retrieval.conversations import conversations_for_file

        if self._graph is None:
            self._graph = CurrentGraph(self.home.graph)
        view = self._graph.view()
        if view is None:
            raise NotIngestedError(f"no graph in {self.home.root}: run `ltm ingest PATH` first")
        hidden = view.hidden_memories(scope)
        return [c for c in conversations_for_file(view, file, action)  # type: ignore[arg-type]
                if not any(t["memory_id"] in hidden for t in (*c["uses"], *c["user_turns"]))]
