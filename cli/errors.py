"""User errors as one line and a non-zero exit, never a traceback (also when raised inside a Dagster step)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from ltm.errors import LtmError
from ltm.home import Home

_RESOURCE_ERRORS = {  # what the OS, sqlite or Kuzu say when the home cannot be written, and the fix
    "no space left on device": "free some space on its disk (or use another --home) and run again",
    "database or disk is full": "free some space on its disk (or use another --home) and run again",
    "read-only file system": "make the home writable (or use another --home) and run again",
    "readonly database": "make the home writable (or use another --home) and run again",
}


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


def _user_line(e: BaseException, home: str | None = None) -> str | None:
    """One line for an LtmError or a home that cannot be written, wherever it sits in the chain."""
    chain = _chain(e)
    for x in chain:
        if isinstance(x, LtmError):
            return str(x)
    for x in chain:
        text = str(x).lower()
        for needle, fix in _RESOURCE_ERRORS.items():
            if needle in text:
                where = f" ({x.filename})" if isinstance(x, OSError) and x.filename else ""
                return f"cannot write to the home {Home.resolve(home).root}{where}: {needle}: {fix}"
    return None


def user_errors(f: Callable) -> Callable:
    """Turn LtmError (also when raised inside a Dagster step) and a full or read-only home into
    one clear line and exit 1."""

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except click.ClickException:
            raise
        except Exception as e:  # Dagster wraps errors raised in a step
            line = _user_line(e, kwargs.get("home"))
            if line is None:
                raise
            raise click.ClickException(line) from e

    return wrapper
