"""Folding what online adds leave behind, after the add has returned.

Each online add appends one small part file per table of the lake's `memories` partition and
one small fragment to the LanceDB table. Left alone, readers stat ever more files and searches
scan ever more unindexed rows, so both are folded now and then: a table of `MAX_PARTS` part
files is rewritten as one (its rows were redacted when first written, so they are not scanned
again), and a vector table of `COMPACT_AFTER_FRAGMENTS` small fragments is optimized (compacted
and indexed). Folding takes 0.4-1.5 s on a 100,000-entry store; inside an add it made one add in
32 that slow, so an add only *schedules* it: one worker thread per process folds under the same
`memories` and `vectors` locks an add takes, while the caller already has its answer. An add that
comes meanwhile waits for the lock, never for a half-folded table: each fold is one lake commit
(renames) and one LanceDB version. A process that exits first waits for its worker
(`concurrent.futures` joins it), and a fold that never ran is simply due at the next add.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.vectors import VectorStore

log = logging.getLogger(__name__)
MAX_PARTS = 64  # part files of a table of the memories partition before it is folded into one

_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ltm-compaction")
_QUEUED: dict[str, Future] = {}  # home root -> its fold queued or running
_GUARD = threading.Lock()


def crowded_tables(lake: Lake) -> list[str]:
    """Tables of the `memories` partition with `MAX_PARTS` part files or more."""
    out = []
    for part in sorted(lake.root.glob(f"*/repo={MEMORY_PARTITION}")):
        if sum(1 for _ in part.glob("part-*.parquet")) >= MAX_PARTS:
            out.append(part.parent.name)
    return out


def due(lake: Lake, store: VectorStore) -> bool:
    """Whether a fold of the partition or of the vector table is due."""
    return bool(crowded_tables(lake)) or store.fragmented()


def fold(home: Home) -> dict[str, object]:
    """Fold the crowded tables of the `memories` partition (one lake commit) and optimize the vector
    table if it is fragmented; returns what was folded."""
    lake, store = home.open_lake(), VectorStore(home.vectors)
    with home.lock("memories", timeout=600):
        tables = crowded_tables(lake)
        if tables:
            with lake.write(MEMORY_PARTITION) as w:
                for table in tables:
                    w.write(table, lake.read(table, MEMORY_PARTITION), redacted=True)
    with home.lock("vectors", timeout=600):
        optimized = store.compact_fragments()
    return {"tables": tables, "vectors_optimized": optimized}


def _run(home: Home) -> None:
    try:
        done = fold(home)
        if done["tables"] or done["vectors_optimized"]:
            log.info("folded the memories of %s: %s", home.root, done)
    except Exception as e:  # the next add schedules it again; nothing is half-written (see the module doc)
        log.warning("folding the memories of %s failed: %s", home.root, e)


def schedule(home: Home, lake: Lake, store: VectorStore) -> Future | None:
    """Queue a fold of this home on the worker if one is due and none is queued; returns its future."""
    key = str(home.root)
    with _GUARD:
        queued = _QUEUED.get(key)
        if queued is not None and not queued.done():
            return queued
        if not due(lake, store):
            return None
        _QUEUED[key] = future = _WORKER.submit(_run, home)
        return future


def wait(home: Home) -> None:
    """Block until this home's queued fold, if any, is finished."""
    with _GUARD:
        queued = _QUEUED.get(str(home.root))
    if queued is not None:
        queued.result()
