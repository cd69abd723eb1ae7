"""The overlay of online memories: the Memory rows of source `online` and their RELATES_TO_* links
that the lake's `memories` partition holds and the current graph build does not (stored by
`HybridLTM.add` since the build was made; `ltm memory import` rows wait for the next ingest, which
embeds and links them).

Online adds never write the graph: they append small Parquet files to the lake's `memories`
partition (the memory, its embedding, its links), which is durable and what the next build copies.
`GraphView` merges this overlay into what it answers (node summaries, neighbours both ways, the
memories linked to a file or an entity), so a memory is found and linked at once (its text is
searched through its vector row, written by the add). The overlay is the difference lake minus
build: once a build holds a memory it leaves the overlay by itself, with nothing to clean up, so
no crash between a build and a cleanup can count a memory twice or lose it. (A memory the build
already holds and an add rewrote keeps its built node until the next build; its vector row is the
new one at once.)

Reading costs one `stat` per partition file per refresh; a file is read once (keyed by name, size
and mtime), so an add that appended one small file costs its readers one small read.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ltm.part_files import PartFiles

PARTITION = "repo=memories"  # ltm.memory.records.MEMORY_PARTITION (the graph layer sits below ltm.memory)
ONLINE_SOURCE = "online"  # ltm.memory.online.SOURCE
LINK_TABLES = ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS")
MEMORY_COLUMNS = ["id", "repo", "vector_id", "memory_type", "category", "content", "source", "created_at", "project_id",
                  "agent_id", "namespace", "private", "expires_at"]  # the last four: ltm/visibility.py
LINK_COLUMNS = ["src", "dst", "dst_label", "relevance_score", "context"]


@dataclass(frozen=True)
class Link:
    """One RELATES_TO_* edge of an overlay memory."""

    rel: str
    memory: str
    entity: str
    entity_label: str
    relevance_score: float | None
    context: str | None


def _rows(files: PartFiles[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [r for rows in files.values() for r in rows]


def _read(path: str, columns: list[str]) -> list[dict[str, Any]]:
    """The rows of one part file; a column a file written by an older version lacks reads as null."""
    have = set(pq.read_schema(path).names)
    rows = pq.read_table(path, columns=[c for c in columns if c in have]).to_pylist()
    missing = [c for c in columns if c not in have]
    return [{**r, **dict.fromkeys(missing)} for r in rows] if missing else rows


def _files(lake_root: Path, table: str, columns: list[str]) -> PartFiles[list[dict[str, Any]]]:
    """The rows of one table's `memories` partition, by part file."""
    return PartFiles(lake_root / table / PARTITION, lambda f: _read(str(f), columns), list)


class MemoryOverlay:
    """The online memories a build lacks, for one build: `built(id)` says whether the build holds it.

    Call `refresh()` before a read (cheap when nothing changed). `memories`: id -> properties (the
    Memory node's, as a build would hold them); `links_from` memory id -> links;
    `links_to` entity id -> links.
    """

    def __init__(self, lake_root: Path, built: Callable[[], Container[str]],
                 copied: Container[tuple[str, int, int]] = frozenset()):
        self.lake_root = Path(lake_root)
        self._built = built
        self._copied = copied  # (file, size, mtime_ns) of the files the build copied: never read
        self._memories = _files(self.lake_root, "Memory", MEMORY_COLUMNS)
        self._links = [_files(self.lake_root, t, LINK_COLUMNS) for t in LINK_TABLES]
        self.memories: dict[str, dict[str, Any]] = {}
        self.links_from: dict[str, list[Link]] = {}
        self.links_to: dict[str, list[Link]] = {}

    def refresh(self) -> "MemoryOverlay":
        changed = self._memories.refresh(self._copied)
        for files in self._links:
            changed = files.refresh(self._copied) or changed
        if changed:
            self._rebuild()
        return self

    def _rebuild(self) -> None:
        built = self._built()
        mems: dict[str, dict[str, Any]] = {}
        for row in _rows(self._memories):  # files in name order: a later part (a later add) wins
            # Imported memories wait for the ingest that embeds and links them; online ones are whole.
            if row["source"] == ONLINE_SOURCE and row["id"] not in built:
                mems[row["id"]] = row
        frm: dict[str, list[Link]] = {}
        to: dict[str, list[Link]] = {}
        seen: set[tuple[str, str, str]] = set()
        for rel, files in zip(LINK_TABLES, self._links):
            for r in _rows(files):
                key = (rel, r["src"], r["dst"])
                if r["src"] not in mems or key in seen:
                    continue
                seen.add(key)
                link = Link(rel, r["src"], r["dst"], r["dst_label"], r["relevance_score"], r["context"])
                frm.setdefault(link.memory, []).append(link)
                to.setdefault(link.entity, []).append(link)
        self.memories, self.links_from, self.links_to = mems, frm, to

    def __len__(self) -> int:
        return len(self.memories)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.memories

    def containing(self, needle: str) -> list[str]:
        """Ids of overlay memories whose content contains `needle` (as Cypher's CONTAINS)."""
        return [i for i, m in self.memories.items() if needle in (m.get("content") or "")]
