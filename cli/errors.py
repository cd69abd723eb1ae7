"""Failures as one line (or one JSON object with --json) and an exit code by kind, never a traceback
for a user error (also when raised inside a Dagster step).

| exit | kind | what |
|---|---|---|
| 0 | | done |
| 1 | internal | a bug: an error the program did not expect (its traceback follows without --json) |
| 2 | usage | a bad command line: an unknown option, a missing argument, a value out of range |
| 3 | input | a bad file, repository, name or value: the message says which and how to fix it |
| 4 | busy | another `ltm` command holds the home: wait for it, or run again |
| 5 | environment | the home, the disk, a credential, a service or a damaged store: the message says what to do |
| 6 | check | the command ran and found a problem (`ltm reconcile` with stores out of step) |
"""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn

import click

from ltm.errors import LtmError
from ltm.home import Home

EXIT_CODES = {"internal": 1, "usage": 2, "input": 3, "busy": 4, "environment": 5, "check": 6}
HINTS = {
    "internal": "this is a bug in ltm: please report it with the command you ran",
    "usage": "see `ltm COMMAND --help` for the arguments and options",
    "input": "fix the value named in the error and run the command again",
    "busy": "another ltm command is writing to this home: wait for it to finish, then run again",
    "environment": "fix what the error names (the home, the disk, a credential or a service), then run again",
    "check": "the command ran and found a problem: see the report",
}
EXIT_CODES_HELP = "Exit codes: " + ", ".join(f"{c} {k}" for k, c in sorted(EXIT_CODES.items(), key=lambda x: x[1])) + \
    " (0 done). With --json, a failure is one JSON object on stdout: {\"error\", \"hint\", \"kind\", \"exit_code\"}."

_RESOURCE_ERRORS = {  # what the OS, sqlite or Kuzu say when the home cannot be written, and the fix
    "no space left on device": "free some space on its disk (or use another --home) and run again",
    "database or disk is full": "free some space on its disk (or use another --home) and run again",
    "read-only file system": "make the home writable (or use another --home) and run again",
    "readonly database": "make the home writable (or use another --home) and run again",
}


class LtmClickError(click.ClickException):
    """A failure of one kind: its message, exit code and hint."""

    def __init__(self, message: str, kind: str = "input"):
        super().__init__(message)
        self.kind = kind
        self.exit_code = EXIT_CODES[kind]


def fail(message: str, kind: str) -> NoReturn:
    """Stop the command with `message` and the exit code of `kind`."""
    raise LtmClickError(message, kind)


def error_object(message: str, kind: str) -> dict[str, Any]:
    return {"error": message, "hint": HINTS[kind], "kind": kind, "exit_code": EXIT_CODES[kind]}


def report(e: click.ClickException, as_json: bool) -> int:
    """Print a failure (one line on stderr, or one JSON object on stdout); returns its exit code."""
    kind = getattr(e, "kind", "usage" if isinstance(e, click.UsageError) else "input")
    code = EXIT_CODES.get(kind, e.exit_code)
    if as_json:
        click.echo(json.dumps(error_object(e.format_message(), kind)))
    else:
        e.show()
    return code


def _chain(e: BaseException) -> list[BaseException]:
    """The error, what Dagster wrapped (`user_exception`) and every cause, without cycles."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [e]
    while todo:
        x = todo.pop(0)
        if x is None or any(x is s for s in seen):
            continue
        seen.append(x)
        todo += [getattr(x, "user_exception", None), x.__cause__, x.__context__]
    return seen


def _user_error(e: BaseException, home: str | None = None) -> tuple[str, str] | None:
    """(one line, kind) for an LtmError or a home that cannot be written, wherever it sits in the chain."""
    chain = _chain(e)
    for x in chain:
        if isinstance(x, LtmError):
            return str(x), x.kind
    for x in chain:
        text = str(x).lower()
        for needle, fix in _RESOURCE_ERRORS.items():
            if needle in text:
                where = f" ({x.filename})" if isinstance(x, OSError) and x.filename else ""
                return f"cannot write to the home {Home.resolve(home).root}{where}: {needle}: {fix}", "environment"
    return None


def user_errors(f: Callable) -> Callable:
    """Turn LtmError (also when raised inside a Dagster step) and a full or read-only home into
    one clear line and the exit code of its kind."""

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except click.ClickException:
            raise
        except Exception as e:  # Dagster wraps errors raised in a step
            found = _user_error(e, kwargs.get("home"))
            if found is None:
                raise
            raise LtmClickError(*found) from e

    return wrapper


# Commands that only read the home: run as a process (`ltm`, `python -m cli`), they end with
# os._exit once their output is flushed. Never in-process (a test's CliRunner, a library caller).
READ_ONLY_COMMANDS = frozenset({"query", "calls", "dependents", "stats", "conversations"})


class _Process:
    entry = False  # set by `cli.entry`, the console script and `python -m cli`


PROCESS = _Process()


class LtmGroup(click.Group):
    """The `ltm` group: failures of every command end as `report` prints them, JSON with --json."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        argv = list(args) if args is not None else sys.argv[1:]
        if not standalone_mode:
            return super().main(argv, prog_name, complete_var, standalone_mode, **extra)
        as_json = "--json" in argv
        try:
            rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except click.ClickException as e:
            sys.exit(report(e, as_json))
        except Exception as e:
            if not as_json:
                raise  # the traceback: an internal error
            click.echo(json.dumps(error_object(f"{type(e).__name__}: {e}", "internal")))
            sys.exit(EXIT_CODES["internal"])
        code = rv if isinstance(rv, int) else 0
        if PROCESS.entry and code == 0 and next((a for a in argv if not a.startswith("-")), None) in READ_ONLY_COMMANDS:
            # Nothing to write back: skip the interpreter's teardown (modules, the Kuzu database's
            # destructor, LanceDB's event loop), ~0.2 s of a cold `ltm query`.
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except BrokenPipeError:  # the reader left (`| head`): nothing more to say
                pass
            os._exit(0)
        if PROCESS.entry and code == 0:
            # Every command has closed what it wrote (lake, graph, vectors, Dagster's storage); what
            # is left is the heap, which the interpreter's teardown would walk with the cycle
            # collector, ~1 s after an ingest (Dagster's, polars', the stages' objects). Frozen
            # objects are not walked; exit handlers and the flush of stdout still run.
            gc.freeze()
        sys.exit(code)
