"""The processes that parse version chains for the history: started at once, one queue each.

Each process is a single-process pool of its own, so a job can be sent to a chosen process: the
one that holds the tree a chain starts from (`version_chains._HELD`). The processes are started
(and import tree-sitter and the grammars) as soon as mining starts, so that work overlaps the
first `git log` read. The bytes queued at each process are counted, so routing can keep them
balanced. Inside a daemonic process (a Dask worker), which may not start processes, there are
none and everything parses in-process.
"""

from __future__ import annotations

import gc
import importlib
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any


def ready(preload: str | None) -> None:
    """Run first in each process: import the parsing code (the module named `preload`: tree-sitter,
    the grammars) before the first job arrives, and turn the cycle collector off, as `mine_history`
    does in its own process (spans and trees make no reference cycles; full collections only walked them)."""
    if preload:
        importlib.import_module(preload)
    gc.disable()


class ParserProcesses:
    """`workers` parser processes (none for one worker, or in a daemonic process); each imports the
    module `preload` (the one whose functions it will run) as soon as it starts."""

    def __init__(self, workers: int, preload: str | None = None):
        self._pools: list[ProcessPoolExecutor] = []
        if workers > 1 and not multiprocessing.current_process().daemon:
            ctx = multiprocessing.get_context("forkserver")
            self._pools = [ProcessPoolExecutor(max_workers=1, mp_context=ctx) for _ in range(workers)]
            for p in self._pools:
                p.submit(ready, preload)
        self._queued = [0] * len(self._pools)  # source bytes sent to each process and not parsed yet
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pools)

    def loads(self) -> list[int]:
        """Source bytes queued at each process."""
        with self._lock:
            return list(self._queued)

    def send(self, w: int, size: int, fn: Any, *args: Any) -> Future:
        """Run `fn(*args)` in process `w`, counting `size` bytes queued there until it is done."""
        with self._lock:
            self._queued[w] += size
        future = self._pools[w].submit(fn, *args)
        future.add_done_callback(lambda _: self._done(w, size))
        return future

    def _done(self, w: int, size: int) -> None:
        with self._lock:
            self._queued[w] -= size

    def close(self) -> None:
        for p in self._pools:
            p.shutdown(cancel_futures=True)
