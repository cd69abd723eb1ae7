"""The lake's tables: the one contract for Parquet, the Kuzu COPY and the LanceDB rows.

Every node table has `id` (its graph_entity_id), `repo` and, where embedded, `vector_id`. Its
graph columns are copied into Kuzu in the order declared here (COPY matches by position); the
lake-only columns (the text to embed, vector metadata) stay in the lake. Every rel table is stored
as `src, dst, src_label, dst_label, repo` plus its properties, one lake table per rel type.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import pyarrow as pa

TS = pa.timestamp("us", tz="UTC")


class Category(str, Enum):
    """The vector row category of the seed schema."""

    FUNCTION = "function"
    MODULE = "module"
    COMMIT_LOG = "commit_log"
    GUIDELINE = "guideline"
    ARCHITECTURE = "architecture"
    MEMORY = "memory"


@dataclass(frozen=True)
class NodeTable:
    """A node label: graph columns (copied to Kuzu) and lake-only columns."""

    label: str
    graph: pa.Schema
    lake_only: pa.Schema = pa.schema([])
    category: Category | None = None
    past_table: str | None = None
    """Lake table of nodes that exist only in the history (written by the commits stage)."""

    @property
    def embedded(self) -> bool:
        return self.category is not None

    @property
    def lake(self) -> pa.Schema:
        return pa.schema(list(self.graph) + list(self.lake_only))


@dataclass(frozen=True)
class RelTable:
    """A rel type with the (from, to) label pairs it may join and its properties."""

    name: str
    pairs: tuple[tuple[str, str], ...]
    props: pa.Schema = pa.schema([])

    @property
    def lake(self) -> pa.Schema:
        keys = [
            pa.field("src", pa.string(), nullable=False),
            pa.field("dst", pa.string(), nullable=False),
            pa.field("src_label", pa.string(), nullable=False),
            pa.field("dst_label", pa.string(), nullable=False),
            pa.field("repo", pa.string(), nullable=False),
        ]
        return pa.schema(keys + list(self.props))


def _node(*fields: tuple[str, pa.DataType], embedded: bool = True) -> pa.Schema:
    base = [pa.field("id", pa.string(), nullable=False), pa.field("repo", pa.string(), nullable=False)]
    if embedded:
        base.append(pa.field("vector_id", pa.string()))
    return pa.schema(base + [pa.field(n, t) for n, t in fields])


_TEXT = pa.schema([pa.field("text", pa.string())])
_LINES = (("line_start", pa.int32()), ("line_end", pa.int32()))
# Centrality over CALLS and DEPENDS_ON, computed at graph build (null in the lake): see
# ltm/graph/centrality.py.
_PAGERANK = ("pagerank", pa.float64())

NODE_TABLES: dict[str, NodeTable] = {
    t.label: t
    for t in [
        NodeTable(
            "Repository",
            _node(
                ("name", pa.string()), ("path", pa.string()), ("branch", pa.string()),
                ("head_sha", pa.string()), ("commit_count", pa.int64()),
                embedded=False,
            ),
        ),
        NodeTable(
            "Commit",
            _node(
                ("sha", pa.string()), ("author_name", pa.string()), ("author_email", pa.string()),
                ("authored_at", TS), ("author_tz_offset", pa.int32()),
                ("committer_name", pa.string()), ("committer_email", pa.string()),
                ("committed_at", TS), ("committer_tz_offset", pa.int32()),
                ("message", pa.string()), ("kind", pa.string()),
            ),
            _TEXT,
            Category.COMMIT_LOG,
        ),
        NodeTable(
            "File",
            _node(
                ("path", pa.string()), ("language", pa.string()), ("size", pa.int64()),
                ("hash", pa.string()), ("skip_reason", pa.string()), ("removed_in", pa.string()),
                embedded=False,
            ),
            past_table="past_files",
        ),
        NodeTable(
            "Module",
            _node(
                ("name", pa.string()), ("path", pa.string()), ("external", pa.bool_()),
                ("language", pa.string()), _PAGERANK,
            ),
            _TEXT,
            Category.MODULE,
        ),
        NodeTable(
            "Class",
            _node(
                ("name", pa.string()), ("qualified_name", pa.string()), ("file_path", pa.string()),
                *_LINES, ("docstring", pa.string()), ("kind", pa.string()), ("removed_in", pa.string()), _PAGERANK,
            ),
            _TEXT,
            Category.MODULE,
            past_table="past_classes",
        ),
        NodeTable(
            "Function",
            _node(
                ("name", pa.string()), ("qualified_name", pa.string()), ("file_path", pa.string()),
                *_LINES, ("signature", pa.string()), ("docstring", pa.string()),
                ("is_method", pa.bool_()), ("body_hash", pa.string()), ("removed_in", pa.string()), _PAGERANK,
            ),
            _TEXT,
            Category.FUNCTION,
            past_table="past_functions",
        ),
        NodeTable(
            "Bug",
            _node(
                ("ref", pa.string()), ("title", pa.string()), ("kind", pa.string()), ("state", pa.string()),
                ("labels", pa.list_(pa.string())), ("reported_at", TS), ("closed_at", TS),
                ("evidence", pa.string()), ("confidence", pa.float64()), ("fix_commits", pa.int64()),
            ),
            _TEXT,
            Category.GUIDELINE,
        ),
        NodeTable(
            "Memory",
            _node(
                ("memory_type", pa.string()), ("category", pa.string()), ("content", pa.string()),
                ("source", pa.string()), ("created_at", TS), ("project_id", pa.string()),
                # isolation and expiry (ltm/visibility.py); null in a home written before them
                ("agent_id", pa.string()), ("namespace", pa.string()), ("private", pa.bool_()), ("expires_at", TS),
            ),
            pa.schema(
                [
                    pa.field("text", pa.string()), pa.field("file_path", pa.string()),
                    pa.field("function_name", pa.string()), pa.field("tags", pa.list_(pa.string())),
                    pa.field("importance", pa.float64()), pa.field("last_accessed", TS),
                    pa.field("line_start", pa.int32()), pa.field("line_end", pa.int32()),
                    # explicit edges of the source entry, JSON: [{"type", "target", "properties"}]
                    pa.field("graph_links", pa.string()),
                    # provenance, JSON: [{"id", "method", "confidence"}] -> DERIVES_FROM (ltm/memory/provenance.py)
                    pa.field("derives_from", pa.string()),
                    # a conversation turn (TraceMem source), JSON: {conversation, role, index, tools}
                    pa.field("conversation", pa.string()),
                ]
            ),
            Category.MEMORY,
        ),
        # A file as a conversation's tool call read or wrote it (ltm.memory.conversations): `blob_id`
        # is git's blob id of the content the export carried, null when it carried the path alone.
        NodeTable("FileVersion", _node(("path", pa.string()), ("blob_id", pa.string()), embedded=False)),
    ]
}

_RELEVANCE = pa.schema(
    [("relevance_score", pa.float64()), ("context", pa.string()), ("linked_at", TS)]
)

REL_TABLES: dict[str, RelTable] = {
    r.name: r
    for r in [
        RelTable("PARENT_OF", (("Commit", "Commit"),)),
        RelTable("DEFINED_IN", (("Function", "File"), ("Class", "File"))),
        RelTable("BELONGS_TO", (("File", "Module"),)),
        RelTable("HAS_METHOD", (("Class", "Function"),)),
        RelTable("CALLS", (("Function", "Function"),), pa.schema([("confidence", pa.float64())])),
        RelTable("DEPENDS_ON", (("Module", "Module"),)),
        # `names`: what the file imports from the module by name (`from m import a, b` / `import { a }
        # from "m"`), comma-separated in source order; null for a whole-module import
        RelTable("IMPORTS", (("File", "Module"),), pa.schema([("names", pa.string())])),
        RelTable("EXTENDS", (("Class", "Class"),)),
        RelTable("IMPLEMENTS", (("Class", "Class"),)),
        RelTable(
            "MODIFIES",
            (("Commit", "Function"), ("Commit", "Class"), ("Commit", "File")),
            pa.schema(
                [
                    ("lines_added", pa.int64()), ("lines_deleted", pa.int64()), ("change_type", pa.string()),
                    ("change_kind", pa.string()),
                ]
            ),
        ),
        RelTable(
            "FIXES",
            (("Commit", "Bug"),),
            pa.schema([("evidence", pa.string()), ("confidence", pa.float64())]),
        ),
        RelTable("AFFECTS", (("Bug", "Function"), ("Bug", "Class"))),
        RelTable(
            "INTRODUCED_BY",
            (("Bug", "Commit"),),
            pa.schema(
                [("method", pa.string()), ("function_id", pa.string()), ("function_name", pa.string()),
                 ("file_path", pa.string()), ("blamed_lines", pa.int64())]
            ),
        ),
        RelTable("RENAMED_FROM", (("File", "File"), ("Function", "Function"), ("Class", "Class"))),
        RelTable("RELATES_TO_FILE", (("Memory", "File"),), _RELEVANCE),
        RelTable("RELATES_TO_FUNCTION", (("Memory", "Function"),), _RELEVANCE),
        RelTable("RELATES_TO_CLASS", (("Memory", "Class"),), _RELEVANCE),
        # a memory -> the memories (episodes) it was extracted from (ltm/memory/provenance.py)
        RelTable("DERIVES_FROM", (("Memory", "Memory"),), pa.schema([("method", pa.string()), ("confidence", pa.float64())])),
        # Conversations as a graph (TraceMem's design; ltm.memory.conversations): turn -> next turn,
        # agent turn -> the file version a tool call read or edited, version -> File at HEAD and ->
        # the commits whose blob it equals.
        RelTable("MESSAGE", (("Memory", "Memory"),), pa.schema([("conversation_id", pa.string()), ("turn", pa.int64())])),
        RelTable(
            "TOOL_USE", (("Memory", "FileVersion"),),
            pa.schema([("tool", pa.string()), ("action", pa.string()), ("tool_use_id", pa.string())]),
        ),
        RelTable("VERSION_OF", (("FileVersion", "File"),)),
        RelTable("AT_COMMIT", (("FileVersion", "Commit"),), pa.schema([("path", pa.string())])),
        # Memory evolution (ltm/memory/evolution.py), recomputed from the memories on every run:
        # SIMILAR_TO newer -> older (weight: cosine of the vectors; contradicts: the newer says otherwise),
        # SUPERSEDES newer -> older (temporal_delta: seconds between them), TRANSITIONED_TO older ->
        # newer for a value that changed (turn: 1 for the first change of the subject, then 2, ...).
        RelTable("SIMILAR_TO", (("Memory", "Memory"),),
                 pa.schema([("weight", pa.float64()), ("contradicts", pa.bool_()), ("reason", pa.string())])),
        RelTable("SUPERSEDES", (("Memory", "Memory"),),
                 pa.schema([("reason", pa.string()), ("temporal_delta", pa.int64())])),
        RelTable("TRANSITIONED_TO", (("Memory", "Memory"),),
                 pa.schema([("subject", pa.string()), ("from_value", pa.string()), ("to_value", pa.string()),
                            ("turn", pa.int64())])),
    ]
}


@dataclass(frozen=True)
class SideTable:
    """Node properties a later stage computes: its own lake table, joined on `id` into the node's
    graph columns at build time (missing rows read as 0), so no two stages write one table."""

    name: str
    label: str
    props: pa.Schema

    @property
    def lake(self) -> pa.Schema:
        keys = [pa.field("id", pa.string(), nullable=False), pa.field("repo", pa.string(), nullable=False)]
        return pa.schema(keys + list(self.props))


SIDE_TABLES: dict[str, SideTable] = {
    s.name: s
    for s in [
        # Defect signals for ranking, written by the bugs stage: distinct fixing commits that modified
        # the function, lines added + deleted over its whole history (from MODIFIES), and distinct bugs
        # whose SZZ-blamed lines sat in it.
        SideTable(
            "FunctionDefects",
            "Function",
            pa.schema([("fix_count", pa.int64()), ("churn", pa.int64()), ("bugs_introduced", pa.int64())]),
        ),
        # A conversation turn's place, written with the conversation graph (ltm.memory.conversations):
        # role `user` or `agent`, the conversation's id and the turn's index in it (null for other memories).
        SideTable(
            "MemoryTurn", "Memory",
            pa.schema([("conversation_id", pa.string()), ("role", pa.string()), ("turn", pa.int64())]),
        ),
    ]
}


def graph_columns(label: str) -> pa.Schema:
    """A node label's columns in Kuzu: its own graph columns, then its side tables' properties."""
    extra = [f for s in SIDE_TABLES.values() if s.label == label for f in s.props]
    return pa.schema(list(NODE_TABLES[label].graph) + extra)


_RANGES = pa.list_(pa.struct([("start", pa.int32()), ("count", pa.int32())]))

LAKE_TABLES: dict[str, pa.Schema] = {
    # One row per file a commit changed (merges: against their first parent); lake only, for
    # history questions and SZZ. Ranges are `-U0` hunks: deleted lines in the old blob, added
    # lines in the new one.
    "file_changes": pa.schema([
        pa.field("repo", pa.string(), nullable=False), pa.field("commit_id", pa.string(), nullable=False),
        pa.field("sha", pa.string(), nullable=False), ("committed_at", TS),
        pa.field("path", pa.string(), nullable=False), ("old_path", pa.string()), ("new_path", pa.string()),
        ("change_kind", pa.string()), ("similarity", pa.int32()), ("binary", pa.bool_()),
        ("lines_added", pa.int64()), ("lines_deleted", pa.int64()), ("old_blob", pa.string()),
        ("new_blob", pa.string()), ("language", pa.string()),
        ("deleted_ranges", _RANGES), ("added_ranges", _RANGES),
    ]),
    # The commits stage's cursor: the tip it mined last and how (one row per repository).
    "history_cursor": pa.schema([
        pa.field("repo", pa.string(), nullable=False), ("branch", pa.string()), ("tip_sha", pa.string()),
        ("commits", pa.int64()), ("complete", pa.bool_()), ("since", pa.string()), ("max_commits", pa.int64()),
        ("mined_at", TS),
    ]),
    # The bugs stage's per-fix SZZ results, keyed by fix sha (a pure function of the sha and the
    # `settings` string): the next run blames only fixes that are not here.
    "szz_fixes": pa.schema([
        pa.field("repo", pa.string(), nullable=False), pa.field("sha", pa.string(), nullable=False),
        ("settings", pa.string()), ("skipped", pa.string()), ("all_paths", pa.list_(pa.string())),
        ("affected", pa.list_(pa.struct([("label", pa.string()), ("id", pa.string()), ("qualified_name", pa.string()),
                                         ("line_start", pa.int32()), ("line_end", pa.int32())]))),
        ("candidates", pa.list_(pa.struct([
            ("sha", pa.string()), ("path", pa.string()), ("committed_at", pa.int64()), ("entity_label", pa.string()),
            ("entity_id", pa.string()), ("entity_name", pa.string()), ("entity_start", pa.int32()),
            ("entity_end", pa.int32()), ("lines", pa.int64()), ("method", pa.string()),
        ]))),
    ]),
    # The bugs stage's cursor: the history tip its SZZ results were derived for (one row per repository).
    "bugs_cursor": pa.schema([
        pa.field("repo", pa.string(), nullable=False), ("tip_sha", pa.string()), ("settings", pa.string()),
        ("fixes", pa.int64()), ("derived_at", TS),
    ]),
}
"""Lake-only tables (never copied into the graph)."""

PAST_TABLES: dict[str, str] = {t.past_table: t.label for t in NODE_TABLES.values() if t.past_table}
"""Lake tables of history-only nodes -> the node label they add to (same lake schema)."""

EMBEDDINGS = pa.schema(
    [
        pa.field("vector_id", pa.string(), nullable=False),
        pa.field("text_hash", pa.string(), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("dim", pa.int32(), nullable=False),
        pa.field("vector", pa.list_(pa.float32()), nullable=False),
    ]
)
"""Lake table `embeddings`: one vector per embedded node, keyed by vector_id."""


def lake_schema(table: str) -> pa.Schema:
    """The Parquet schema of a lake table, by node label, rel name, side table or `embeddings`."""
    if table in NODE_TABLES:
        return NODE_TABLES[table].lake
    if table in REL_TABLES:
        return REL_TABLES[table].lake
    if table in SIDE_TABLES:
        return SIDE_TABLES[table].lake
    if table in PAST_TABLES:
        return NODE_TABLES[PAST_TABLES[table]].lake
    if table in LAKE_TABLES:
        return LAKE_TABLES[table]
    if table == "embeddings":
        return EMBEDDINGS
    raise KeyError(f"unknown lake table {table!r}")


def empty(table: str) -> pa.Table:
    """An empty table with the lake schema."""
    return lake_schema(table).empty_table()


def rows_to_table(table: str, rows: list[dict]) -> pa.Table:
    """Rows (dicts) to a table with the lake schema; missing columns become null."""
    schema = lake_schema(table)
    return pa.Table.from_pylist(rows, schema=schema)
