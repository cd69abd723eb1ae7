"""The read-only view of one graph build: its catalogue, node summaries, neighbours and the code
questions the CLI asks (callers, callees, dependents).

Every query is parameterised (`$ids`, `$o`); only labels and property names from the build's
own catalogue are written into the Cypher text, and each distinct text is prepared once per view.
Properties and edges that later stages add (`pagerank`, fix counts, CALLS, MODIFIES, FIXES,
AFFECTS) are used when the build has them and skipped when it does not.

Kuzu 0.11 answers `n.id = $id` from the primary-key index but `n.id IN $ids` (and `UNWIND $ids
... {id: i}`, planned as a hash join) by scanning the label and reading every projected column of
every row. A build is immutable, so per label this view keeps, on first use, the ids by
internal offset with the ranking signals (`LabelIndex`): neighbour queries then filter on
`offset(id(n))` and return internal ids (no string column is scanned), ranking reads no query, and
the few properties shown are read by primary-key lookups, eight per prepared statement.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ltm import ids as idlib
from ltm.graph.entity_ids import by_label, name_from_id
from ltm.graph.access import MemoryAccess
from ltm.graph.engine import Connection, PreparedStatement, prepare, query, query_arrow
from ltm.graph import reader_index
from ltm.graph.inputs import copied_overlay_files
from ltm.graph.name_words import NameWords
from ltm.graph.node import Node, shown_props
from ltm.graph.overlay import MemoryOverlay
from ltm.schema import REL_TABLES
from ltm.visibility import COLUMNS as VISIBILITY_COLUMNS
from ltm.visibility import SHARED, Scope

# Node properties a stage stores as defect signals (FunctionDefects: fix_count, bugs_introduced); summed.
DEFECT_PROPS = ("fix_count", "bugs_introduced", "bug_count", "defect_count")
CENTRALITY_PROPS = ("pagerank", "page_rank")
LOOKUP_CHUNK = 8  # primary-key lookups per prepared UNION ALL statement


@dataclass
class LabelIndex:
    """One label of one build, loaded once: ids by internal offset, and the ranking signals."""

    ids: list[str | None]  # by internal offset; None where an amend deleted a node
    offset: dict[str, int]
    has_vector: np.ndarray
    pagerank: np.ndarray | None
    defects: np.ndarray
    removed: np.ndarray | None = None  # the entity no longer exists at the tip (`removed_in` is set)


class GraphView:
    """A read-only connection to one build plus its catalogue: tables and properties."""

    def __init__(self, conn: Connection, build: Path | None = None):
        self.conn = conn
        self.build = build  # its saved reader index (`reader_index.py`) is used when present
        self._name_sizes: dict[str, np.ndarray] = {}
        self.props: dict[str, set[str]] = {}
        self.rels: set[str] = set()
        self.table_label: dict[int, str] = {}
        self._prepared: dict[str, PreparedStatement] = {}
        self._index: dict[str, LabelIndex] = {}
        self._words: dict[str, NameWords] = {}
        self._overlay: MemoryOverlay | None = None
        self._access: MemoryAccess | None = None  # the memories not plainly shared (`access.py`)
        for table_id, name, kind in self.run("CALL show_tables() RETURN id, name, type"):
            if kind == "NODE":
                self.table_label[int(table_id)] = name
                self.props[name] = {r[0] for r in self.run(f"CALL table_info('{name}') RETURN name")}
            elif kind == "REL" and self.run(f"MATCH ()-[r:{name}]->() RETURN count(r) > 0")[0][0]:
                self.rels.add(name)

    def run(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """A parameterised query (None, never `{}`, when there is nothing to bind); prepared once per text."""
        if not params:
            return query(self.conn, cypher, None)
        stmt = self._prepared.get(cypher)
        if stmt is None:
            stmt = self._prepared[cypher] = prepare(self.conn, cypher)
        return query(self.conn, stmt, params)

    # --- online memories the build lacks (`overlay.py`) ---------------------------------------
    def attach_overlay(self, lake_root: Path) -> "GraphView":
        """Merge the lake's online memories this build lacks into every answer of this view."""
        self._overlay = MemoryOverlay(lake_root, lambda: self.index("Memory").offset if "Memory" in self.props else (),
                                      copied_overlay_files(self.build, lake_root))
        return self

    @property
    def overlay(self) -> MemoryOverlay | None:
        """The overlay, refreshed (a stat per lake file; files read only when they changed), or None."""
        return self._overlay.refresh() if self._overlay is not None else None

    # --- who sees which memory (`ltm.visibility`) ---------------------------------------------
    def hidden_memories(self, scope: Scope) -> set[str]:
        """Ids of the Memory nodes, built or overlaid, that `scope` may not see (other namespaces'
        memories, other agents' private ones, expired ones; `access.py`). A build without the
        columns (made before them) holds shared memories only."""
        hidden = self._memory_access().hidden(scope)
        ov = self.overlay
        if ov:
            hidden |= {i for i, m in ov.memories.items() if not scope.sees_row(m)}
        return hidden

    def expired_memories(self, now: datetime) -> set[str]:
        """Ids of the Memory nodes, built or overlaid, whose `expires_at` is at or before `now`."""
        out = set(self._memory_access().expired(now))
        ov = self.overlay
        if ov:
            probe = Scope(now=now)
            out |= {i for i, m in ov.memories.items() if not probe.sees(expires_at=m.get("expires_at"))}
        return out

    def _memory_access(self) -> MemoryAccess:
        """The build's memories that are not plainly shared, read once per view."""
        if self._access is None:
            rows: list = []
            if self.has("Memory", "namespace"):
                cols = ", ".join(f"n.{c} AS {c}" for c in VISIBILITY_COLUMNS)
                t = query_arrow(self.conn, "MATCH (n:Memory) WHERE (n.namespace IS NOT NULL AND n.namespace <> $shared) "
                                f"OR n.private OR n.expires_at IS NOT NULL RETURN n.id AS id, {cols}", {"shared": SHARED})
                rows = zip(*(t.column(c).to_pylist() for c in ("id", *VISIBILITY_COLUMNS)))
            self._access = MemoryAccess(rows)
        return self._access

    def has(self, label: str, prop: str) -> bool:
        return prop in self.props.get(label, ())

    def first_prop(self, label: str, names: Iterable[str]) -> str | None:
        return next((p for p in names if self.has(label, p)), None)

    # --- the per-build index -----------------------------------------------------------------
    def index(self, label: str) -> LabelIndex:
        """Ids by internal offset and the ranking signals of `label`, read once for this build."""
        idx = self._index.get(label)
        if idx is not None:
            return idx
        saved = reader_index.load_label(self.build, label) if self.build is not None else None
        if saved is not None:
            ids_saved = saved["id"]
            idx = LabelIndex(ids_saved, {i: o for o, i in enumerate(ids_saved) if i is not None},
                             saved["has_vector"].astype(bool),
                             saved.get("pagerank"), saved["defects"].astype(np.float64),
                             saved["removed"].astype(bool) if "removed" in saved else None)
            if "name_size" in saved:
                self._name_sizes[label] = saved["name_size"]
            self._index[label] = idx
            return idx
        pr = self.first_prop(label, CENTRALITY_PROPS)
        stored = [p for p in DEFECT_PROPS if self.has(label, p)]
        cols = ["offset(id(n)) AS o", "n.id AS id"]
        if self.has(label, "vector_id"):
            cols.append("n.vector_id IS NOT NULL AS v")
        if pr:
            cols.append(f"n.{pr} AS pr")
        if self.has(label, "removed_in"):
            cols.append("n.removed_in IS NOT NULL AS r")
        cols += [f"n.{p} AS d{k}" for k, p in enumerate(stored)]
        t = query_arrow(self.conn, f"MATCH (n:{label}) RETURN {', '.join(cols)}")
        # Arrays are indexed by internal offset. An amended build (`amend.py`) has holes where it
        # deleted nodes (Kuzu does not reuse their offsets): there the id is None and the rest empty.
        at = np.asarray(t.column("o").to_numpy(zero_copy_only=False), dtype=np.int64)
        n = int(at.max()) + 1 if len(at) else 0
        ids_by_offset: list[str | None] = [None] * n
        for o, i in zip(at.tolist(), t.column("id").to_pylist()):
            ids_by_offset[o] = i

        def spread(values: np.ndarray, empty: Any) -> np.ndarray:
            out = np.full(n, empty, dtype=values.dtype)
            out[at] = values
            return out

        def col(name: str) -> np.ndarray:  # nulls become NaN
            return spread(np.asarray(t.column(name).to_numpy(zero_copy_only=False), dtype=np.float64), np.nan)

        has_vector = (spread(np.asarray(t.column("v").to_pylist(), dtype=bool), False) if "v" in t.column_names
                      else np.zeros(n, dtype=bool))
        defects = np.zeros(n)
        for k in range(len(stored)):
            defects += np.nan_to_num(col(f"d{k}"))
        removed = spread(np.asarray(t.column("r").to_pylist(), dtype=bool), False) if "r" in t.column_names else None
        idx = LabelIndex(ids_by_offset, {i: o for o, i in enumerate(ids_by_offset) if i is not None}, has_vector,
                         col("pr") if pr else None, defects, removed)
        if not stored and label in ("Function", "Class"):
            self._derived_defects(label, idx)
        self._index[label] = idx
        return idx

    def _derived_defects(self, label: str, idx: LabelIndex) -> None:
        """Defect signal from edges where no stage stored one: bugs affecting it, bug-fix commits modifying it."""
        if "AFFECTS" in self.rels:
            for o, k in self.run(f"MATCH (b:Bug)-[:AFFECTS]->(n:{label}) RETURN offset(id(n)), count(b)"):
                idx.defects[o] += k
        if "MODIFIES" in self.rels and self.has("Commit", "kind"):
            for o, k in self.run(
                f"MATCH (c:Commit)-[:MODIFIES]->(n:{label}) WHERE c.kind = $kind RETURN offset(id(n)), count(c)",
                {"kind": "bugfix"},
            ):
                idx.defects[o] += k

    def offsets(self, label: str, ids: Iterable[str]) -> list[int]:
        """Internal offsets of the ids of `label` this build holds (unknown ids are left out)."""
        where = self.index(label).offset
        return [where[i] for i in ids if i in where]

    def id_of(self, internal: dict[str, int]) -> str | None:
        """The graph_entity_id of an internal node id (`id(m)` in a query result)."""
        label = self.table_label.get(int(internal["table"]))
        return self.index(label).ids[int(internal["offset"])] if label else None

    def named(self, label: str, names: Iterable[str], repo: str | None = None, limit: int | None = None) -> list[str]:
        """Ids of `label` called one of `names`: a dotted name is a qualified one (`Session.send`), the
        others match `name` (`helper`); at most `limit` when given."""
        if label not in self.props:
            return []
        names = list(names)
        # Each column is read only when some name needs it.
        # Ruby's `Sinatra.Base#settings`: an instance method named apart from a singleton method of its name
        plain = [n for n in names if "." not in n and "#" not in n]
        dotted = [n for n in names if "." in n or "#" in n]
        conds, params = [], {}
        if plain:
            conds.append("n.name IN $names")
            params["names"] = plain
        if dotted and self.has(label, "qualified_name"):
            conds.append("n.qualified_name IN $qnames")
            params["qnames"] = dotted
        if not conds:
            return []
        where = " OR ".join(conds)
        if repo:
            where = f"({where}) AND n.repo = $repo"
            params["repo"] = repo
        tail = ""
        if limit is not None:
            tail = " LIMIT $lim"
            params["lim"] = limit
        # Ordered, so a LIMIT keeps the same names every time (Kuzu's parallel scan has no fixed order),
        # and what exists at the tip first: a name a history moved through many files (zod's `ZodString`:
        # 2 live classes, 11 of deleted files) must not have its live entities ranked, or cut, behind those.
        gone = "n.removed_in IS NOT NULL" if self.has(label, "removed_in") else "false"
        return [r[0] for r in self.run(f"MATCH (n:{label}) WHERE {where} RETURN DISTINCT n.id AS id, {gone} AS gone "
                                       f"ORDER BY gone, id{tail}", params)]

    def live_first(self, ids: Iterable[str]) -> list[str]:
        """`ids` with the entities that still exist at the tip ahead of removed ones, otherwise in order."""
        ids = list(ids)
        gone = {i for i, n in self.signals(ids).items() if n.removed}
        return [i for i in ids if i not in gone] + [i for i in ids if i in gone] if gone else ids

    def name_matches(self, words: Iterable[str], labels: Iterable[str], limit: int) -> list[str]:
        """Ids of `labels` whose names share the most of `words` (`name_words.py`), best first; a removed
        entity that a live one of its name replaced comes after the live ones sharing as many words."""
        words = list(words)
        found: list[tuple[int, bool, int, str]] = []  # (-words shared, removed, name size, id)
        for label in labels:
            if label not in self.props:
                continue
            idx = self.index(label)
            if label not in self._words:
                self._words[label] = self.words(label)
            gone = idx.removed if idx.removed is not None else np.zeros(len(idx.ids), dtype=bool)
            found += [(key, bool(gone[p]), size, idx.ids[p])
                      for key, size, p in self._words[label].match(words, limit)]
        # A removed entity named as a live one is a stale copy of it (a moved class, a deleted generated
        # copy): it goes after the live ones sharing as many words; other removed names keep their place.
        live = {name_from_id(i) for _, removed, _, i in found if not removed}
        ranked = sorted((key, removed and name_from_id(i) in live, size, i) for key, removed, size, i in found)
        return [i for *_, i in ranked[:limit]]

    def words(self, label: str) -> NameWords:
        """The name words of `label`: saved beside the build, else cut from its ids."""
        idx = self.index(label)
        sizes = self._name_sizes.get(label)
        saved = reader_index.load_words(self.build, label, sizes) if self.build is not None and sizes is not None else None
        return saved if saved is not None else NameWords(name_from_id(i) if i else None for i in idx.ids)

    def save_reader_index(self, labels: Iterable[str], named: Iterable[str]) -> None:
        """Save each label's index (and for `named`, its name words) beside the build, for later readers."""
        named = set(named)
        for label in labels:
            if label not in self.props or self.build is None:
                continue
            idx = self.index(label)
            reader_index.save_label(self.build, label, {
                "id": idx.ids, "has_vector": idx.has_vector, "pagerank": idx.pagerank, "defects": idx.defects,
                "removed": idx.removed,
            }, NameWords(name_from_id(i) if i else None for i in idx.ids) if label in named else None)

    # --- nodes ---------------------------------------------------------------------------
    def signals(self, ids: Iterable[str]) -> dict[str, Node]:
        """Ranking signals (pagerank, defects) and vector_id of the given ids, from the index: no query."""
        out: dict[str, Node] = {}
        ov = self.overlay
        for label, group in by_label(ids).items():
            if label == "Memory" and ov:
                for i in group:
                    if i in ov:
                        out[i] = Node(id=i, label=label, vector_id=ov.memories[i].get("vector_id"))
            if label not in self.props:
                continue
            idx = self.index(label)
            for i in group:
                o = idx.offset.get(i)
                if o is None:
                    continue
                out[i] = Node(id=i, label=label, vector_id=idlib.vector_id(i) if idx.has_vector[o] else None,
                              pagerank=None if idx.pagerank is None or np.isnan(idx.pagerank[o]) else float(idx.pagerank[o]),
                              defects=float(idx.defects[o]),
                              removed=bool(idx.removed is not None and idx.removed[o]))
        return out

    def details(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Summary and shown properties of the given ids (unknown ids are left out), by primary-key lookups."""
        out: dict[str, dict[str, Any]] = {}
        ov = self.overlay
        for label, group in by_label(ids).items():
            if label == "Memory" and ov:
                for i in [i for i in group if i in ov]:
                    row = ov.memories[i]
                    out[i] = {"label": label, **{p: row[p] for p in shown_props(label) if row.get(p) is not None}}
                group = [i for i in group if i not in ov]
            if label not in self.props or not group:
                continue
            props = [p for p in shown_props(label) if self.has(label, p)]
            one = "MATCH (n:{label} {{id: $i{k}}}) RETURN n.id AS id, " + ", ".join(f"n.{p} AS c{j}" for j, p in enumerate(props))
            cypher = " UNION ALL ".join(one.format(label=label, k=k) for k in range(LOOKUP_CHUNK))
            for start in range(0, len(group), LOOKUP_CHUNK):
                chunk = group[start:start + LOOKUP_CHUNK]
                params = {f"i{k}": chunk[k] if k < len(chunk) else "" for k in range(LOOKUP_CHUNK)}
                for row in self.run(cypher, params):
                    out[row[0]] = {"label": label, **{p: v for p, v in zip(props, row[1:]) if v is not None}}
        return out

    def nodes(self, ids: Iterable[str]) -> dict[str, Node]:
        """Summaries with signals of the given ids (unknown ids are left out)."""
        ids = list(ids)
        sig = self.signals(ids)
        for i, d in self.details([i for i in ids if i in sig]).items():
            sig[i].fill(d)
        return sig

    # --- neighbours ------------------------------------------------------------------------
    def _reachable(self, label: str, direction: str) -> bool:
        """Whether a rel table present in this build leaves (`out`) or enters (`in`) `label`."""
        return any((a if direction == "out" else b) == label for name, rel in REL_TABLES.items() if name in self.rels
                   for a, b in rel.pairs)

    def neighbours(self, ids: Iterable[str], limit_per_node: int = 50) -> dict[str, list[tuple[str, str, str]]]:
        """id -> [(relation, direction 'out'|'in', neighbour id)] one hop away, at most `limit_per_node` each.

        One query per label of the ids. A hub (a function with thousands
        of callers) cannot crowd the others out: when the shared LIMIT is reached, the ids that got
        fewer than their share are asked again without the ones that filled it.
        """
        out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        ids = list(ids)
        if self.rels:
            self._built_neighbours(ids, limit_per_node, out)
        ov = self.overlay
        if ov:  # links of online memories: from the memory to its code, from the code to the memory
            for i in ids:
                links = [(lk.rel, "out", lk.entity) for lk in ov.links_from.get(i, ())]
                links += [(lk.rel, "in", lk.memory) for lk in ov.links_to.get(i, ())]
                room = limit_per_node - len(out.get(i, ()))
                if links and room > 0:
                    out[i].extend(links[:room])
        return out

    def _built_neighbours(self, ids: list[str], limit_per_node: int, out: dict[str, list[tuple[str, str, str]]]) -> None:
        for label, group in by_label(ids).items():
            if label not in self.props:
                continue
            idx = self.index(label)
            pending = self.offsets(label, group)
            # Both directions in one statement (an undirected pattern would not tell them apart),
            # only those some rel table of this build has: Kuzu refuses a pattern no table matches.
            branches = [(d, arrow) for d, arrow in (("out", "-[r]->"), ("in", "<-[r]-")) if self._reachable(label, d)]
            if not branches:
                continue
            # Kuzu 0.11.3 crashes (SIGSEGV) preparing a UNION whose branches share a parameter: one each.
            cypher = " UNION ALL ".join(
                f"MATCH (n:{label}){arrow}(m) WHERE offset(id(n)) IN $o_{d} "
                f"RETURN offset(id(n)) AS o, label(r) AS rel, id(m) AS m, '{d}' AS d LIMIT $lim_{d}"
                for d, arrow in branches)
            while pending:
                lim = limit_per_node * len(pending)
                rows = self.run(cypher, {k: v for d, _ in branches for k, v in ((f"o_{d}", pending), (f"lim_{d}", lim))})
                for o in pending:
                    out.pop(idx.ids[o], None)
                for o, rel, m, d in rows:
                    src, dst = idx.ids[o], self.id_of(m)
                    if dst is not None and len(out[src]) < limit_per_node:
                        out[src].append((rel, d, dst))
                if max(sum(r[3] == "out" for r in rows), sum(r[3] == "in" for r in rows)) < lim:
                    break
                pending = [o for o in pending if len(out.get(idx.ids[o], ())) < limit_per_node]

    # --- code questions (`ltm calls`, `ltm dependents`) --------------------------------------------
    def callers(self, name: str, repo: str | None = None) -> list[dict[str, Any]]:
        """Every function with a CALLS edge into a function named `name` (`named`), with the edge's confidence."""
        return self._calls("caller", name, repo)

    def callees(self, name: str, repo: str | None = None) -> list[dict[str, Any]]:
        """Every function that a function named `name` calls (resolved calls only)."""
        return self._calls("callee", name, repo)

    def _calls(self, other: str, name: str, repo: str | None) -> list[dict[str, Any]]:
        targets = self.named("Function", [name], repo)
        if not targets or "CALLS" not in self.rels:
            return []
        pattern = "(o:Function)-[c:CALLS]->(f:Function)" if other == "caller" else "(f:Function)-[c:CALLS]->(o:Function)"
        keys = ["function", "function_file", other, f"{other}_file", f"{other}_line", "confidence", f"{other}_pagerank"]
        rows = self.run(
            f"MATCH {pattern} WHERE f.id IN $ids "
            "RETURN f.qualified_name, f.file_path, o.qualified_name, o.file_path, o.line_start, c.confidence, o.pagerank "
            "ORDER BY f.file_path, f.qualified_name, c.confidence DESC, o.file_path, o.line_start",
            {"ids": targets},
        )
        return [dict(zip(keys, row)) for row in rows]

    def dependents(self, name: str, repo: str | None = None) -> list[dict[str, Any]]:
        """Every module with a DEPENDS_ON edge to the module named `name` (internal or external)."""
        keys = ["module", "external", "dependent", "dependent_path", "dependent_pagerank"]
        rows = self.run(  # no null parameter beside `$repo IS NULL OR`: LadybugDB types it BOOL
            "MATCH (m:Module)-[:DEPENDS_ON]->(target:Module) WHERE target.name = $name"
            + (" AND target.repo = $repo" if repo is not None else "")
            + " RETURN target.name, target.external, m.name, m.path, m.pagerank ORDER BY m.name",
            {"name": name, **({"repo": repo} if repo is not None else {})},
        )
        return [dict(zip(keys, row)) for row in rows]
