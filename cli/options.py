"""Options and output every command shares: --home, --json and how a result is printed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click


def home_option(f: Callable) -> Callable:
    return click.option(
        "--home", "home", type=click.Path(file_okay=False), default=None, envvar="LTM_HOME",
        help="Home directory of the store (default: $LTM_HOME, else ./.ltm).",
    )(f)


def emit(data: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    click.echo(json.dumps(data, indent=2, default=str) if as_json else text(data))
