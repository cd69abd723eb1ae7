"""Folding what online adds leave behind, after the add has returned.

Each online add appends one small part file per table of the lake's `memories` partition and
one small fragment to the LanceDB table. Left alone, readers stat ever more files and searches
scan ever more unindexed rows, so both are folded now and then: a table of `MAX_PARTS` part
files is rewritten as one (its rows were redacted when first written, so they are not scanned
again), and a vector table of `COMPACT_AFTER_FRAGMENTS` small fragments is optimized (compacted
and indexed). Folding takes 0.4-1.5 s on a 100,000-entry store; inside an add it made one add in
32 that slow, so an add only *schedules* it: one worker thread per process folds while the caller
already has its answer. The worker waits for a pause of `PAUSE_SECONDS` without an add of the home
before it folds, since a fold beside a burst of adds takes the CPU they need (on two cores, adds
back to back ran 30-40% slower while one ran); a partition that has grown to `OVERDUE` times the
limit is folded at once all the same, so a burst that never pauses still gets folded. The partition's files are read and merged outside any lock and swapped in
under the `memories` lock an add takes (the parts added meanwhile kept), so an add waits for a
swap, not for the fold; the vector table is optimized under the `vectors` lock, beside which this
process's adds append their rows without waiting (`vectors_lock`). Nothing is ever half-folded: one lake commit (renames), one
LanceDB version. A process that exits first waits for its worker
(`concurrent.futures` joins it), and a fold that never ran is simply due at the next add.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext

import pyarrow as pa
import pyarrow.parquet as pq

from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.schema import lake_schema
from ltm.vectors import VectorStore

log = logging.getLogger(__name__)
MAX_PARTS = 64  # part files of a table of the memories partition before it is folded into one

_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ltm-compaction")
_QUEUED: dict[str, Future] = {}  # home root -> its fold queued or running
_GUARD = threading.Lock()
_OPTIMIZING: set[str] = set()  # homes whose vector table this process's worker is optimizing now
CHECK_EVERY = 8  # adds of a home in this process between two looks at whether a fold is due (~5 ms each)
_ADDS: dict[str, int] = {}
PAUSE_SECONDS = 0.25  # no add of the home for this long, and a due fold starts
OVERDUE = 2  # times MAX_PARTS / COMPACT_AFTER_FRAGMENTS: folded without waiting for a pause
_LAST_ADD: dict[str, float] = {}  # home root -> time.monotonic() of its last add in this process
_FOLDING: set[str] = set()  # homes whose fold has passed its pause (it lists the files from here on)


def crowded_tables(lake: Lake, limit: int | None = None) -> list[str]:
    """Tables of the `memories` partition with `limit` (default `MAX_PARTS`) part files or more."""
    out = []
    for part in sorted(lake.root.glob(f"*/repo={MEMORY_PARTITION}")):
        if sum(1 for _ in part.glob("part-*.parquet")) >= (limit or MAX_PARTS):
            out.append(part.parent.name)
    return out


def due(lake: Lake, store: VectorStore) -> bool:
    """Whether a fold of the partition or of the vector table is due."""
    return bool(crowded_tables(lake)) or store.fragmented()


def overdue(lake: Lake, store: VectorStore) -> bool:
    """Whether the partition or the vector table has grown to `OVERDUE` times its limit."""
    return bool(crowded_tables(lake, MAX_PARTS * OVERDUE)) or store.fragmented(OVERDUE)


def _wait_for_a_pause(home: Home) -> None:
    """Return once the home has had no add for `PAUSE_SECONDS`, or at once when the fold is overdue."""
    key = str(home.root)
    lake, store = home.open_lake(), VectorStore(home.vectors)
    while True:
        with _GUARD:
            quiet = time.monotonic() - _LAST_ADD.get(key, 0.0)
        if quiet >= PAUSE_SECONDS or overdue(lake, store):
            return
        time.sleep(min(PAUSE_SECONDS - quiet, 0.25))


def fold(home: Home) -> dict[str, object]:
    """Fold the crowded tables of the `memories` partition (one lake commit) and optimize the vector
    table if it is fragmented; returns what was folded.

    The part files are read and merged before the `memories` lock is taken (a part file never
    changes once written), so an add waits only for the swap; parts added meanwhile are kept."""
    lake, store = home.open_lake(), VectorStore(home.vectors)
    snapshot = {t: lake.files(t, MEMORY_PARTITION) for t in crowded_tables(lake)}
    merged = {t: pa.concat_tables([pq.read_table(f, schema=lake_schema(t)) for f in files])
              for t, files in snapshot.items()}
    tables: list[str] = []
    if merged:
        with home.lock("memories", timeout=600), lake.write(MEMORY_PARTITION) as w:
            tables = [t for t in merged if w.replace_files(t, snapshot[t], merged[t])]
    with home.lock("vectors", timeout=600):  # no other process writes the table meanwhile
        with _GUARD:
            _OPTIMIZING.add(str(home.root))
        try:
            optimized = store.compact_fragments()
        finally:
            with _GUARD:
                _OPTIMIZING.discard(str(home.root))
    return {"tables": tables, "vectors_optimized": optimized}


def _run(home: Home) -> None:
    key = str(home.root)
    try:
        _wait_for_a_pause(home)
        with _GUARD:
            _FOLDING.add(key)
        done = fold(home)
        if done["tables"] or done["vectors_optimized"]:
            log.info("folded the memories of %s: %s", home.root, done)
    except Exception as e:  # the next add schedules it again; nothing is half-written (see the module doc)
        log.warning("folding the memories of %s failed: %s", home.root, e)
    finally:
        with _GUARD:
            _FOLDING.discard(key)


def schedule(home: Home, lake: Lake, store: VectorStore) -> Future | None:
    """Queue a fold of this home on the worker if one is due and none is waiting to start (one that
    is folding may have listed the files before this add); returns its future."""
    key = str(home.root)
    with _GUARD:
        _LAST_ADD[key] = time.monotonic()
        queued = _QUEUED.get(key)
        if queued is not None and not queued.done() and key not in _FOLDING:
            return queued
        _ADDS[key] = n = _ADDS.get(key, 0) + 1
        if (n - 1) % CHECK_EVERY or not due(lake, store):  # the first add of a process looks, then every 8th
            return None
        _QUEUED[key] = future = _WORKER.submit(_run, home)
        return future


def vectors_lock(home: Home) -> AbstractContextManager:
    """The lock an online add takes to append its vector rows: none while this process's worker
    optimizes the table (it holds the inter-process lock already, and Lance commits an append beside
    a compaction: an append never conflicts), else the home's `vectors` lock."""
    with _GUARD:
        mine = str(home.root) in _OPTIMIZING
    return nullcontext() if mine else home.lock("vectors", timeout=600)


def wait(home: Home, timeout: float | None = None) -> None:
    """Block until this home's last queued fold, if any, is finished (the worker runs them in order);
    `TimeoutError` after `timeout` seconds."""
    with _GUARD:
        queued = _QUEUED.get(str(home.root))
    if queued is not None:
        queued.result(timeout=timeout)
