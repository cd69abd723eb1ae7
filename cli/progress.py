"""What `ltm ingest` shows while it runs: each stage's line as the stage ends, a bar with rate and
ETA inside the long stages on a terminal, plain lines elsewhere, JSON events with --json, only
the last line with --quiet."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Literal, TextIO

import click

from ltm.progress import Progress

Mode = Literal["terminal", "plain", "json", "quiet"]
PLAIN_EVERY_S = 10.0  # a plain progress line at most this often when the output is not a terminal
BAR_WIDTH = 24


def mode_for(as_json: bool, quiet: bool, stream: TextIO | None = None) -> Mode:
    if as_json:
        return "json"
    if quiet:
        return "quiet"
    stream = stream or sys.stderr
    return "terminal" if stream.isatty() else "plain"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds + 0.5)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _columns() -> int:
    """The terminal's width (stderr's), 80 when it cannot be told."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80


class View:
    """Prints a run's stages and progress in one of the four modes (JSON on stdout, the rest on stderr)."""

    def __init__(self, mode: Mode):
        self.mode = mode
        self._bar = False  # a bar is drawn on the current terminal line
        self._plain_at: dict[str, float] = {}

    def _line(self, text: str) -> None:
        if self._bar:
            click.echo("\r\033[K", nl=False, err=True)
            self._bar = False
        click.echo(text, err=True)

    def event(self, kind: str, **data: Any) -> None:
        if self.mode == "json":
            click.echo(json.dumps({"event": kind, **data}, default=str))

    def message(self, text: str, **data: Any) -> None:
        """A line a person reads (start, up to date), or its JSON event."""
        if self.mode == "json":
            self.event(data.pop("event", "message"), message=text, **data)
        elif self.mode != "quiet":
            self._line(text)

    def stage(self, repo: str, asset: str, metadata: dict[str, Any]) -> None:
        summary = metadata.get("summary", "")
        if self.mode == "json":
            self.event("stage", repo=repo, stage=asset, summary=summary,
                       metadata={k: v for k, v in metadata.items() if k != "summary"})
        elif self.mode != "quiet":
            self._line(f"  {asset:<15} {summary}")

    def progress(self, p: Progress) -> None:
        if self.mode == "json":
            now = time.monotonic()
            if not p.finished and now - self._plain_at.get(p.stage, 0.0) < 1.0:
                return  # one progress event a second per stage
            self._plain_at[p.stage] = now
            self.event("progress", stage=p.stage, done=p.done, total=p.total, unit=p.unit,
                       rate=round(p.rate, 1), eta_s=None if p.eta_s is None else round(p.eta_s, 1), finished=p.finished)
        elif self.mode == "terminal":
            self._draw(p)
        elif self.mode == "plain" and not p.finished and p.seconds >= PLAIN_EVERY_S:
            now = time.monotonic()
            if now - self._plain_at.get(p.stage, 0.0) >= PLAIN_EVERY_S:
                self._plain_at[p.stage] = now
                total = f"/{p.total}" if p.total else ""
                self._line(f"  {p.stage:<15} {p.done}{total} {p.unit} ({p.rate:.0f}/s, ETA {_duration(p.eta_s)})")

    def _draw(self, p: Progress) -> None:
        if p.finished:
            if self._bar:
                click.echo("\r\033[K", nl=False, err=True)
                self._bar = False
            return
        if p.total:
            filled = int(BAR_WIDTH * min(p.done, p.total) / p.total)
            bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {p.done}/{p.total} {p.unit} {100 * p.done / p.total:3.0f}%"
        else:
            bar = f"{p.done} {p.unit}"
        text = f"  {p.stage:<15} {bar}  {p.rate:.0f}/s  ETA {_duration(p.eta_s)}"
        click.echo(f"\r\033[K{text[:_columns() - 1]}", nl=False, err=True)  # a wrapped bar cannot be redrawn
        self._bar = True

    def done(self, text: str, kind: str = "done", **data: Any) -> None:
        """A last line (a run done, a repository up to date), shown in every mode."""
        if self.mode == "json":
            self.event(kind, message=text, **data)
        else:
            self._line(text)
