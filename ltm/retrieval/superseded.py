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

import logging
from pathlib import Path

import pyarrow.parquet as pq

log = logging.getLogger(__name__)

TABLE, PARTITION = "SUPERSEDES", "repo=memories"  # ltm.memory.records.MEMORY_PARTITION


class Superseded:
    """older memory id -> the id of the memory that supersedes it (the newest, when several do)."""

    def __init__(self, lake_root: Path):
        self.folder = Path(lake_root) / TABLE / PARTITION
        self._keys: list[tuple[str, int, int]] = []
        self._rows: dict[tuple[str, int, int], list[tuple[str, str, int]]] = {}
        self.by: dict[str, str] = {}

    def refresh(self) -> "Superseded":
        keys = []
        for f in sorted(self.folder.glob("part-*.parquet")) if self.folder.is_dir() else []:
            try:
                st = f.stat()
            except FileNotFoundError:  # replaced by a writer between glob and stat
                continue
            keys.append((str(f), st.st_size, st.st_mtime_ns))
        if keys == self._keys:
            return self
        rows = {}
        for key in keys:
            if key not in self._rows:
                try:
                    t = pq.read_table(key[0], columns=["src", "dst", "temporal_delta"])
                except (OSError, ValueError) as e:  # replaced meanwhile: read again next time
                    log.debug("superseded: %s not read (%s)", key[0], e)
                    continue
                self._rows[key] = list(zip(*(t.column(c).to_pylist() for c in ("src", "dst", "temporal_delta"))))
            rows[key] = self._rows[key]
        self._rows, self._keys = rows, keys
        best: dict[str, tuple[int, str]] = {}
        for part in rows.values():
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
