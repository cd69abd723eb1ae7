"""The vector half of retrieval: LanceDB hybrid search (vector + full text, fused by reciprocal rank).

Works through `VectorStore.table()` only, so the table's name and versioning stay the store's
business. The filter is pushed down as a prefilter, so top-k is never starved by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ltm.retrieval.filters import Filters, sql_str
from ltm.retrieval.fusion import rrf
from ltm.vectors import VectorStore, nearest
from ltm.visibility import COLUMNS as VISIBILITY_COLUMNS
from ltm.visibility import Scope

TIE_MARGIN = 10  # full-text hits read past the limit, so ties at the cut are cut in one order
COLUMNS = ["vector_id", "graph_entity_id", "repo", "label", "category", "content",
           "file_path", "line_start", "line_end", "created_at"]


def entry_key(row: dict[str, Any]) -> str:
    """The id results are fused on: the graph entity, else the vector row (plain memories)."""
    return row.get("graph_entity_id") or row["vector_id"]


@dataclass
class VectorCandidates:
    scores: dict[str, float] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    vector_rank: dict[str, int] = field(default_factory=dict)
    text_rank: dict[str, int] = field(default_factory=dict)
    code_rank: dict[str, int] = field(default_factory=dict)  # the vector ranking among code alone (`code_labels`)


class VectorSide:
    """Hybrid search and row lookups over one VectorStore."""

    def __init__(self, store: VectorStore):
        self.store = store
        self._tbl = None
        self._name: str | None = None

    def table(self):
        name = self.store.table_name  # a model switch points the store at another table
        if self._tbl is None or name != self._name:
            self._tbl, self._name = self.store.table(name), name
            self._fts = "content_idx" in {i.name for i in self._tbl.list_indices()}
        else:
            self._tbl.checkout_latest()
        # a table written before the scope's columns gets them with its next write (`VectorStore`)
        self._scoped = "namespace" in self._tbl.schema.names
        self._columns = COLUMNS + (list(VISIBILITY_COLUMNS) if self._scoped else [])  # checked again on every hit
        return self._tbl

    def _where(self, filters: Filters, scope: Scope | None) -> str | None:
        """The filters and the scope (`ltm.visibility`) as one prefilter; a table written before
        the scope's columns existed holds shared memories only, with no expiry."""
        parts = [p for p in (filters.lance_where(), scope.lance_where() if scope and self._scoped else None) if p]
        return " AND ".join(f"({p})" for p in parts) or None

    def search(self, vector: np.ndarray, text: str, filters: Filters, limit: int,
               scope: Scope | None = None, code_labels: tuple[str, ...] = ()) -> VectorCandidates:
        """Vector and full-text results over `content`, fused by reciprocal rank, within `scope`.

        `code_labels`: also rank the rows of these labels alone by vector (`code_rank`, not in
        `scores`). A question in words sits nearer to prose (commit messages, documentation, notes)
        than to any source text, so among all rows the function that does what it describes is
        often below the first `limit`, while among code alone it is near the top.
        """
        tbl = self.table()
        where = self._where(filters, scope)
        by_vector = self._nearest(tbl, vector, where, limit)
        by_text = self._full_text(tbl, text, where, limit)
        out = VectorCandidates()
        if code_labels:
            lits = ", ".join(sql_str(lab) for lab in code_labels)
            code_where = " AND ".join(f"({p})" for p in (where, f"label IN ({lits})") if p)
            for rank, r in enumerate(self._nearest(tbl, vector, code_where, limit), 1):
                out.code_rank[entry_key(r)] = rank
                out.rows.setdefault(entry_key(r), r)
        for rank, r in enumerate(by_vector, 1):
            out.vector_rank[entry_key(r)] = rank
            out.rows.setdefault(entry_key(r), r)
        for rank, r in enumerate(by_text, 1):
            out.text_rank[entry_key(r)] = rank
            out.rows.setdefault(entry_key(r), r)
        out.scores = rrf([([entry_key(r) for r in by_vector], 1.0), ([entry_key(r) for r in by_text], 1.0)])
        return out

    def _nearest(self, tbl, vector: np.ndarray, where: str | None, limit: int) -> list[dict[str, Any]]:
        """The `limit` rows nearest `vector` by cosine distance, among those `where` admits."""
        rows = nearest(tbl, vector, limit, where, self._columns).to_list()
        return sorted(rows, key=lambda r: (r["_distance"], entry_key(r)))  # ties in one order

    def text_search(self, text: str, filters: Filters, limit: int, scope: Scope | None = None) -> VectorCandidates:
        """LanceDB's full-text ranking alone (no vector, `scores` left empty): the graph side's full
        text on a build without its own (an engine without the extension offline)."""
        out = VectorCandidates()
        tbl = self.table()
        for rank, r in enumerate(self._full_text(tbl, text, self._where(filters, scope), limit), 1):
            out.text_rank[entry_key(r)] = rank
            out.rows.setdefault(entry_key(r), r)
        return out

    def _full_text(self, tbl, text: str, where: str | None, limit: int) -> list[dict[str, Any]]:
        """Full-text hits on `content`; none without the index, for a blank text, or for a query
        the FTS parser refuses."""
        if not (self._fts and text.strip()):
            return []
        # BM25 ties are common (short texts, the same words) and LanceDB returns them in no fixed
        # order: a few more are read, so those tied at the cut are sorted by id too.
        tq = tbl.search(text, query_type="fts").select(self._columns + ["_score"]).limit(limit + TIE_MARGIN)
        if where:
            tq = tq.where(where, prefilter=True)
        try:
            found = tq.to_list()
        except (ValueError, RuntimeError, OSError):
            return []
        return sorted(found, key=lambda r: (-r["_score"], entry_key(r)))[:limit]

    def rows(self, vector_ids: list[str], scope: Scope | None = None) -> dict[str, dict[str, Any]]:
        """Rows by vector_id (through the BTree index), keyed like search results; within `scope`."""
        if not vector_ids:
            return {}
        tbl = self.table()
        lits = ", ".join(sql_str(v) for v in dict.fromkeys(vector_ids))
        where = " AND ".join(p for p in (f"vector_id IN ({lits})", self._where(Filters(), scope)) if p)
        found = tbl.search().where(where).select(self._columns).limit(len(vector_ids)).to_list()
        return {entry_key(r): r for r in found}
