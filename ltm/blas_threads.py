"""One BLAS thread for the small matrix products a warm process answers with.

numpy's OpenBLAS starts one thread per core and splits every product among them. For the products
a question or an online add computes (a 20-token forward pass of all-MiniLM-L6-v2, one vector
against 20,000 stored ones) the threads spend longer waiting on each other than working, and on a
machine busy with other work (an agent's: builds, tests) a waiting thread loses its core: a
question's forward pass took 190-440 ms against 21-42 ms on one thread, a warm `ltm query` with
the local model 525 ms against 66 ms at p50, one vector against 20,000 8.0 ms against 2.3 ms (two
cores at load 3-4; BENCHMARKS.md). The pipeline's batch work keeps every core: the limit holds
only inside `one_blas_thread`, and the process's setting comes back after it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()  # one limit at a time: two overlapping ones could restore each other's value
_CONTROLLER: list = []  # the process's threadpoolctl controller, made on first use (~4 ms)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within it, numpy's BLAS uses one thread; callers from several threads take turns."""
    with _LOCK:
        if not _CONTROLLER:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER.append(ThreadpoolController())
        limiter = _CONTROLLER[0].limit(limits=1, user_api="blas")
        try:
            yield
        finally:
            limiter.restore_original_limits()
