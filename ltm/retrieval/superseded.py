"""Which memories a newer one supersedes, as retrieval needs it: read from the lake, kept warm.

The lake's `SUPERSEDES` table of the `memories` partition holds the batch's edges (the graph build
copies the same rows) and those online adds appended since, so one reader serves both and an add
hides the memory it supersedes at once, before any build. Files are re-read only when one
changes (a `stat` per file per query).

Retrieval (`ltm.retrieval.retrieve`) lets the newest memory of a chain stand in for the older ones
it reaches (their score, when higher, passes to it) and leaves the older ones out unless asked
(`include_superseded`); shown, an older one carries `superseded_by`.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from ltm.part_files import PartFiles

TABLE, PARTITION = "SUPERSEDES", "repo=memories"  # ltm.memory.records.MEMORY_PARTITION


class Superseded:
    """older memory id -> the id of the memory that supersedes it (the newest, when several do)."""

    def __init__(self, lake_root: Path):
        self.files = PartFiles(Path(lake_root) / TABLE / PARTITION, _read)
        self.by: dict[str, str] = {}

    def refresh(self) -> "Superseded":
        if not self.files.refresh():
            return self
        best: dict[str, tuple[int, str]] = {}
        for part in self.files.values():
            for newer, older, delta in part:
                if older not in best or (delta or 0) > best[older][0]:
                    best[older] = (delta or 0, newer)
        self.by = {older: newer for older, (_, newer) in best.items()}
        return self

    def newest(self, memory_id: str) -> str:
        """The end of the chain that starts at `memory_id` (itself when nothing supersedes it)."""
        seen = {memory_id}
        while memory_id in self.by and self.by[memory_id] not in seen:
            memory_id = self.by[memory_id]
            seen.add(memory_id)
        return memory_id

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.by


def _read(path: Path) -> list[tuple[str, str, int]]:
    t = pq.read_table(path, columns=["src", "dst", "temporal_delta"])
    return list(zip(*(t.column(c).to_pylist() for c in ("src", "dst", "temporal_delta"))))
