"""Progress of the long stages (commits mined, fixes blamed, texts embedded, tables copied, rows written).

A stage asks for a `counter(stage, total, unit)` and calls `add(n)` as work finishes, then
`close()`. Who watches is the process's reporter: none by default, so library users and runs
started from the Dagster UI pay one no-op call per item and see nothing. The CLI installs one
with `reporting(...)` for the length of an in-process run and draws a bar or prints events.

A counter tells the reporter at most about 200 times over its total (and when it opens and
closes), so a stage may call `add` per commit or per text; the reporter throttles by time.
Counters are meant for the thread that runs the stage.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

STEPS = 200
"""About how many reports a counter with a known total sends."""


class Reporter(Protocol):
    """Receives progress: `done` of `total` (None when unknown) `unit`s of `stage`; `final` on close."""

    def progress(self, stage: str, done: int, total: int | None, unit: str, final: bool) -> None: ...


class Counter:
    """Counts one stage's work and reports it to the reporter that was installed when it opened."""

    __slots__ = ("stage", "total", "unit", "done", "_next", "_step", "_reporter")

    def __init__(self, stage: str, total: int | None, unit: str, reporter: Reporter):
        self.stage, self.total, self.unit, self.done = stage, total, unit, 0
        self._reporter = reporter
        self._step = max(1, (total or 0) // STEPS)
        self._next = self._step
        reporter.progress(stage, 0, total, unit, False)

    def add(self, n: int = 1) -> None:
        """`n` more units are done."""
        self.done += n
        if self.done >= self._next:
            self._next = self.done + self._step
            self._reporter.progress(self.stage, self.done, self.total, self.unit, False)

    def close(self) -> None:
        """The stage's work is over (all of it, or as much as there was)."""
        self._reporter.progress(self.stage, self.done, self.total, self.unit, True)

    def __enter__(self) -> "Counter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _NoCounter(Counter):
    """What `counter` returns when nobody watches: every call does nothing."""

    __slots__ = ()

    def __init__(self) -> None:
        self.stage, self.total, self.unit, self.done = "", None, "", 0

    def add(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


_NO_COUNTER = _NoCounter()
_reporter: Reporter | None = None


def active() -> bool:
    """Whether a reporter watches (a stage may skip work done only to know its total, e.g. a count)."""
    return _reporter is not None


def counter(stage: str, total: int | None, unit: str) -> Counter:
    """A counter for `stage` (the asset's name, e.g. `commits`) over `total` `unit`s; use it as a context manager.

    Nothing is reported for a total of 0 (no work, no bar)."""
    if _reporter is None or total == 0:
        return _NO_COUNTER
    return Counter(stage, total, unit, _reporter)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Install `reporter` for this process until the block ends (then the previous one is back)."""
    global _reporter
    previous, _reporter = _reporter, reporter
    try:
        yield reporter
    finally:
        _reporter = previous
