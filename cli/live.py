"""What `ltm ingest` shows while its run goes on: a bar on a terminal, plain lines, or JSON events.

`LiveView` is the process's `ltm.progress` reporter during the run and receives each stage's end
from `pipelines.run.ingest_partitions(on_stage=...)`, so stage lines appear as stages finish, in
run order. Modes:

- `bar`: stderr is a terminal; a tqdm bar with rate and ETA for each long stage, stage lines above it.
- `plain`: stderr is a file or a pipe; stage lines, and a line per running stage every
  `PLAIN_EVERY` seconds; never a carriage return.
- `quiet`: only the final line (errors are printed by the command's error handling).
- `json`: one JSON object per line on stdout (`start`, `progress` at most once a second per
  stage, `stage`, `done`, `up_to_date`); nothing else goes to stdout.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, Literal, TextIO

import click

Mode = Literal["bar", "plain", "quiet", "json"]
PLAIN_EVERY = 10.0
"""Seconds between two plain progress lines of one stage."""
JSON_EVERY = 1.0
"""Seconds between two JSON progress events of one stage."""


def choose_mode(quiet: bool, as_json: bool, err: TextIO | None = None) -> Mode:
    """json over quiet over bar (stderr is a terminal) over plain."""
    if as_json:
        return "json"
    if quiet:
        return "quiet"
    return "bar" if (err or sys.stderr).isatty() else "plain"


class LiveView:
    """Renders one command's progress in `mode`; use it as `ltm.progress.reporting(view)`."""

    def __init__(self, mode: Mode, err: TextIO | None = None, out: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.mode = mode
        self._err, self._out, self._clock = err or sys.stderr, out or sys.stdout, clock
        self._bars: dict[str, Any] = {}
        self._last: dict[str, float] = {}
        self._repo: str | None = None

    # --- what the command says -------------------------------------------------------------
    def note(self, text: str, **event: Any) -> None:
        """A line for people (not in quiet or json mode); with `event`, that JSON event in json mode."""
        if self.mode == "json":
            if event:
                self._json(event)
        elif self.mode != "quiet":
            self._line(text)

    def final(self, text: str, **event: Any) -> None:
        """The command's last line (also in quiet mode), or its JSON event."""
        self._json(event) if self.mode == "json" else self._line(text)

    def stage(self, repo: str, asset: str, metadata: dict[str, Any]) -> None:
        """A stage (asset) of `repo`'s run has ended: its line, or a `stage` event."""
        self._repo = repo
        self._close_bar(asset)
        if self.mode == "json":
            self._json({"event": "stage", "repo": repo, "stage": asset, "summary": metadata.get("summary", ""),
                        "metadata": metadata})
        elif self.mode != "quiet":
            self._line(f"  {asset:<15} {metadata.get('summary', '')}")

    # --- ltm.progress.Reporter ---------------------------------------------------------------
    def progress(self, stage: str, done: int, total: int | None, unit: str, final: bool) -> None:
        if self.mode == "bar":
            self._bar(stage, done, total, unit, final)
        elif self.mode in ("plain", "json"):
            now = self._clock()
            every = PLAIN_EVERY if self.mode == "plain" else JSON_EVERY
            if stage not in self._last:  # the first report starts the clock
                self._last[stage] = now
                if self.mode == "plain":
                    return
            elif not final and now - self._last[stage] < every:
                return
            self._last[stage] = now
            if final:
                del self._last[stage]
            if self.mode == "plain":
                if not final:
                    self._line(f"  {stage:<15} {done}{f'/{total}' if total is not None else ''} {unit} ...")
            else:
                self._json({"event": "progress", "repo": self._repo, "stage": stage, "done": done, "total": total,
                            "unit": unit, "final": final})

    def close(self) -> None:
        """Close any bar still open (a failed run) so an error line starts on a clean line."""
        for stage in list(self._bars):
            self._close_bar(stage)

    # --- drawing ---------------------------------------------------------------------------
    def _bar(self, stage: str, done: int, total: int | None, unit: str, final: bool) -> None:
        from tqdm import tqdm

        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(
                total=total, desc=f"  {stage:<15}", unit=f" {unit}", file=self._err, leave=False,
                mininterval=0.1, dynamic_ncols=True,
            )
        bar.update(done - bar.n)
        if final:
            bar.refresh()  # the last count is drawn before the bar gives way to the stage line
            self._close_bar(stage)

    def _close_bar(self, stage: str) -> None:
        bar = self._bars.pop(stage, None)
        if bar is not None:
            bar.close()

    def _line(self, text: str) -> None:
        if self._bars:
            from tqdm import tqdm

            tqdm.write(text, file=self._err)
        else:
            print(text, file=self._err, flush=True)

    def _json(self, event: dict[str, Any]) -> None:
        print(json.dumps(event, default=str), file=self._out, flush=True)


def json_errors(f: Callable) -> Callable:
    """With `--json` (the command's `as_json`), a user error is `{"error": ..., "hint": ...}` on
    stdout and the same exit code. Put it above `user_errors`, which makes the one-line error."""

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except click.ClickException as e:
            if not kwargs.get("as_json"):
                raise
            problem, _, hint = e.format_message().rpartition(": ")
            if not problem:
                problem, hint = hint, f"see `ltm {click.get_current_context().info_name} --help`"
            click.echo(json.dumps({"error": problem, "hint": hint}))
            sys.exit(e.exit_code)

    return wrapper
