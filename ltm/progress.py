"""Progress of the long stages (commits mined, fixes blamed, texts embedded, rows copied), told to
whoever listens in this process: the CLI draws a bar from it; nobody listens by default.

A stage calls `tracker(stage, total, unit)` once and `advance(n)` as it goes; the calls cost a
function call and a clock read when nobody listens, so they sit in per-batch loops, not per-row
ones. Listeners are per process (the CLI runs its Dagster runs in-process) and must be quick.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

MIN_INTERVAL_S = 0.1  # at most ten updates a second reach the listener


@dataclass(frozen=True)
class Progress:
    """One stage's progress: `done` of `total` (None when unknown) `unit`s, `seconds` since it began."""

    stage: str
    done: int
    total: int | None
    unit: str
    seconds: float
    finished: bool = False

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        if not self.total or not self.done or self.done >= self.total:
            return None
        return (self.total - self.done) / self.rate if self.rate else None


Listener = Callable[[Progress], None]
_listeners: list[Listener] = []
_lock = threading.Lock()


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send every stage's progress to `listener` while the block runs."""
    with _lock:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(listener)


class Tracker:
    """The progress of one stage; `advance` as work is done, `close` (or the `with` block) at the end."""

    def __init__(self, stage: str, total: int | None, unit: str):
        self.stage, self.total, self.unit = stage, total, unit
        self.done = 0
        self.started = self._last = time.monotonic()
        self._send(force=True)

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._send()

    def close(self) -> None:
        self._send(force=True, finished=True)

    def __enter__(self) -> "Tracker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, force: bool = False, finished: bool = False) -> None:
        if not _listeners or self.total == 0:  # nothing to do: no bar (e.g. no memory to embed)
            return
        now = time.monotonic()
        if not force and now - self._last < MIN_INTERVAL_S:
            return
        self._last = now
        event = Progress(self.stage, self.done, self.total, self.unit, now - self.started, finished)
        for listener in list(_listeners):
            listener(event)


def listened() -> bool:
    """Whether anyone listens now: a stage may skip work done only for its total (a `rev-list --count`)."""
    return bool(_listeners)


def tracker(stage: str, total: int | None, unit: str) -> Tracker:
    """Start reporting one stage's progress (`total` None when it is not known in advance; 0: nothing is told)."""
    return Tracker(stage, total, unit)
