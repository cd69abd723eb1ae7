"""Dagster's sqlite storage written without a disk flush per stored event, while `ltm` runs a batch.

Dagster opens a new sqlite connection for nearly every read and write of a home's instance (its
engines use `NullPool`) and its databases run in WAL mode with SQLite's default `synchronous=FULL`:
every commit flushes the WAL to disk, and every close of the last connection to a database
checkpoints it, flushes the database, deletes the WAL and flushes the folder. A cold `ltm ingest`
of one repository made ~1,300 `fdatasync` calls that way, ~3 s of waiting for the disk on a
machine where one flush takes 2.5 ms, most of it on the thread that runs the steps.

`quick_commits(folder)` changes that for the databases under `folder` (the home's `dagster/`) in
this process, until it ends: each new connection gets `journal_mode=WAL` (so a new database's
tables are created in WAL mode too) and `synchronous=NORMAL` (a commit is not flushed; the WAL is
flushed at checkpoints), and one idle connection is kept open to each database, so the connections
Dagster closes are never the last one and do not checkpoint. What a commit wrote is in the WAL
file at once: a killed process loses nothing; a power cut can lose the last commits of the runs,
never the database's integrity (SQLite's guarantee for WAL with `synchronous=NORMAL`). The kept
connections are closed by `release()`, checkpointing each database once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

_lock = threading.Lock()
_folders: set[Path] = set()
_kept: dict[str, sqlite3.Connection] = {}


def _main_file(conn: sqlite3.Connection) -> str:
    for _, name, path in conn.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return path or ""
    return ""


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    if not _folders or not isinstance(dbapi_connection, sqlite3.Connection):
        return
    main = _main_file(dbapi_connection)
    path = str(Path(main).resolve()) if main else ""
    if not path or not any(Path(path).is_relative_to(f) for f in _folders):
        return
    dbapi_connection.execute("PRAGMA journal_mode=WAL")
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")
    with _lock:
        if path not in _kept:
            keeper = sqlite3.connect(path, check_same_thread=False)
            keeper.execute("PRAGMA synchronous=NORMAL")
            _kept[path] = keeper


event.listen(Engine, "connect", _on_connect)


@contextmanager
def quick_commits(folder: Path) -> Iterator[None]:
    """Within the block, this process's connections to the sqlite databases under `folder` commit
    without a flush each and do not checkpoint on close (see the module's docstring)."""
    folder = Path(folder).resolve()
    with _lock:
        _folders.add(folder)
    try:
        yield
    finally:
        with _lock:
            _folders.discard(folder)
        release(folder)


def release(folder: Path) -> None:
    """Close the kept connections to the databases under `folder` (each checkpoints its WAL once)."""
    folder = Path(folder).resolve()
    with _lock:
        paths = [p for p in _kept if Path(p).is_relative_to(folder)]
        conns = [_kept.pop(p) for p in paths]
    for conn in conns:
        conn.close()
