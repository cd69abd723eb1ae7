"""Python's cycle collector paused while an extraction makes its rows.

Mining and code extraction make millions of small, acyclic objects (rows, spans, call tuples).
Each full collection would walk them and everything else the process holds (a Dagster step holds
a lot; a benchmark holds earlier results), for nothing: reference counting frees them anyway.
In a forked worker a collection also touches every object inherited from the parent, copying
the pages they sit on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause the cycle collector for the block; it runs again afterwards if it ran before."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
