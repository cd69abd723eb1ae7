"""`ltm`: the command line, a thin edge over the library and the Dagster pipeline.

The top layer: it may import `ltm`, `resources`, `assets` and `pipelines`; nothing imports it.
Each module adds one group of commands to `main`; imports of the stores and of Dagster happen
inside the commands, so `ltm --help` and a query start fast.
"""

from cli import conversations, ingest, mcp, memory, query, repo, store, ui  # noqa: F401  (each registers its commands)
from cli.app import main
from cli.errors import PROCESS


def entry() -> None:
    """The `ltm` process: `main`, ending read-only commands without the interpreter's teardown."""
    PROCESS.entry = True
    main()


__all__ = ["entry", "main"]
