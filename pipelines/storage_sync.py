"""The home's Dagster sqlite storage commits without waiting for the disk on every event.

Dagster's sqlite storage opens a new connection for every event it stores (`NullPool`), and a
cold `ltm ingest` of one repository stores about 400 of them (step starts, logs, materializations,
their asset index rows), each a transaction that sqlite's default `synchronous=FULL` flushes to
disk. Its databases are in WAL mode (Dagster sets it when it creates them), where
`synchronous=NORMAL` is what sqlite recommends: a transaction survives a crash of the process
(`kill -9`), and a power cut can lose only the last transactions, never corrupt the file. Run
history is not the source of truth of anything (the lake is), and a damaged storage is set aside
and made anew (`pipelines.run.home_instance`), so the flush per event buys nothing here.

`relax_sync(dagster_dir)` applies it to the connections this process opens to the databases
under `dagster_dir` that are in WAL mode; every other sqlite database keeps its own setting.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

_DIRS: set[str] = set()


def relax_sync(dagster_dir: Path) -> None:
    """From now on in this process, WAL-mode sqlite databases under `dagster_dir` commit with
    `synchronous=NORMAL` (no flush to disk per transaction)."""
    if not _DIRS:
        event.listen(Engine, "connect", _on_connect)
    _DIRS.add(os.path.join(os.path.realpath(dagster_dir), ""))


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    path = next((row[2] for row in dbapi_connection.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not path or not any(os.path.realpath(path).startswith(d) for d in _DIRS):
        return
    # a database not yet in WAL (Dagster switches it right after creating its tables) keeps FULL:
    # in rollback-journal mode NORMAL could corrupt it on a power cut
    if dbapi_connection.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")
