"""The graph engine's full-text extension (bundled with Kuzu; LadybugDB has none offline): one index per node label over its name-like properties.

Created at the end of a graph build so the graph side of retrieval can match names, messages,
titles and memory text by relevance. The extension ships with Kuzu 0.11.3 and loads offline; if
it cannot load, the build goes on without indexes and retrieval falls back to exact matching.
"""

from __future__ import annotations


from ltm.graph.engine import Connection, can_full_text, query
from ltm.schema import NODE_TABLES

# label -> properties to index (only those the schema declares are used). Functions, classes and
# modules are matched by the words of their names (`name_words.py`, NAMED_LABELS), never through
# Kuzu's index: theirs were built and never read, ~40% of the index time of an eight-repository
# home (#21), and an amended build would keep them up to date for nothing.
FTS_PROPERTIES: dict[str, tuple[str, ...]] = {
    "Commit": ("message", "author_name", "author_email"),
    "Bug": ("ref", "title"),
    "Memory": ("content", "category"),
}


def fts_index_name(label: str) -> str:
    return f"{label.lower()}_fts"


def create_fts_indexes(conn: Connection) -> list[str]:
    """Create the full-text indexes of a fresh build; returns the labels indexed ([] without the
    extension, and on an engine that has none offline: LadybugDB would download it)."""
    if not can_full_text(conn):
        return []
    try:
        query(conn, "LOAD EXTENSION fts")
    except RuntimeError:
        return []
    done = []
    for label, props in FTS_PROPERTIES.items():
        declared = [p for p in props if p in NODE_TABLES[label].graph.names] if label in NODE_TABLES else []
        if not declared:
            continue
        cols = ", ".join(f"'{p}'" for p in declared)
        query(conn, f"CALL CREATE_FTS_INDEX('{label}', '{fts_index_name(label)}', [{cols}])")
        done.append(label)
    return done


def fts_labels(conn: Connection) -> list[str]:
    """The labels a build has full-text indexes on (an amended copy keeps them up to date)."""
    try:
        rows = query(conn, "CALL show_indexes() RETURN *")
    except RuntimeError:
        return []
    return sorted(str(r[0]) for r in rows if str(r[2]).upper() == "FTS")
