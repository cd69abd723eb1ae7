"""Housekeeping of a home: compact LanceDB, remove old graph builds, check index coverage.

Vector tables left behind by a model switch (`ltm reembed`) are dropped once the switch is older
than the vector retention.

Run on a schedule (the `maintenance` asset). Each part takes the same lock as the writer it
could disturb, so it never runs in the middle of a graph build or a vector upsert. Old LanceDB
versions are removed only past a retention of at least `MIN_RETENTION`, so a reader that opened
an older version a moment ago keeps its files.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ltm.errors import LtmError
from ltm.graph.build import list_builds, prune_builds
from ltm.home import Home
from ltm.memory.expiry import remove_expired
from ltm.vectors import VECTOR_INDEX_MIN_ROWS, VectorStore

MIN_RETENTION = timedelta(hours=1)
KEY_INDEXES = ("vector_id", "graph_entity_id", "repo", "content")


@dataclass
class MaintenanceReport:
    """What one maintenance pass did and found."""

    vector_rows: int = 0
    versions_before: int = 0
    versions_after: int = 0
    disk_bytes_before: int = 0
    disk_bytes_after: int = 0
    tables_dropped: list[str] = field(default_factory=list)
    builds_removed: list[str] = field(default_factory=list)
    builds_kept: int = 0
    index_coverage: dict[str, dict[str, int]] = field(default_factory=dict)
    missing_indexes: list[str] = field(default_factory=list)
    memories_expired: int = 0  # expired memories removed from the lake and the vectors (ltm.memory.expiry)
    seconds: float = 0.0

    @property
    def indexes_complete(self) -> bool:
        """Every expected index exists and covers every row."""
        return not self.missing_indexes and all(c["unindexed"] == 0 for c in self.index_coverage.values())

    def to_dict(self) -> dict:
        return {**asdict(self), "indexes_complete": self.indexes_complete}


def _disk_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def check_retention(retention: timedelta) -> None:
    """Refuse a retention short enough to delete files a running reader may still use."""
    if retention < MIN_RETENTION:
        raise LtmError(
            f"vector retention {retention} is below the safe minimum {MIN_RETENTION}: readers may still "
            "use those versions; pass a longer retention"
        )


def index_coverage(store: VectorStore) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Per index: rows indexed and not yet indexed; and the expected indexes that are missing."""
    if not store.exists():
        return {}, []
    tbl = store.table()
    coverage = {}
    for idx in tbl.list_indices():
        stats = tbl.index_stats(idx.name)
        coverage[idx.name] = {"indexed": int(stats.num_indexed_rows), "unindexed": int(stats.num_unindexed_rows)}
    expected = [f"{c}_idx" for c in KEY_INDEXES]
    if tbl.count_rows() >= VECTOR_INDEX_MIN_ROWS:
        expected.append("vector_idx")
    return coverage, [name for name in expected if name not in coverage]


def run_maintenance(home: Home, vector_retention: timedelta, graph_retention: int, lock_timeout_s: float = 3600) -> MaintenanceReport:
    """Remove expired memories, compact and clean the vector table, prune old graph builds, then
    measure index coverage.

    Expired memories (`ltm.memory.expiry`) leave the lake's `memories` partition (with their
    embeddings, links and provenance) and the vector table at once; the next graph build no longer
    holds them (queries never answered them anyway)."""
    check_retention(vector_retention)
    if graph_retention < 1:
        raise LtmError(f"graph retention {graph_retention} must keep at least the current build: use 1 or more")
    started = time.perf_counter()
    report = MaintenanceReport()
    store = VectorStore(home.vectors)
    with home.lock("memories", timeout=lock_timeout_s):
        gone = remove_expired(home.open_lake(), datetime.now(timezone.utc))
        report.memories_expired = len(gone)
    with home.lock("vectors", timeout=lock_timeout_s):
        if gone and store.exists():
            store.delete_ids([v for _, v in gone if v])
        if store.exists():
            tbl = store.table()
            report.versions_before = len(tbl.list_versions())
            report.disk_bytes_before = _disk_bytes(home.vectors)
            report.tables_dropped = store.drop_stale_tables(vector_retention)
            tbl.optimize(cleanup_older_than=vector_retention)
            report.versions_after = len(tbl.list_versions())
            report.disk_bytes_after = _disk_bytes(home.vectors)
            report.vector_rows = tbl.count_rows()
        report.index_coverage, report.missing_indexes = index_coverage(store)
    with home.lock("graph", timeout=lock_timeout_s):
        report.builds_removed = prune_builds(home.graph, graph_retention)
        report.builds_kept = len(list_builds(home.graph))
    report.seconds = time.perf_counter() - started
    return report
