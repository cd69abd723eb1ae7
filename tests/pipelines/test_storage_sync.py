"""The home's Dagster storage commits without a disk flush per event; every other sqlite database
keeps its own setting, and a home's database not yet in WAL mode keeps sqlite's safe default."""

import sqlite3

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ltm.home import Home
from pipelines.run import home_instance
from pipelines.storage_sync import relax_sync

NORMAL, FULL = 1, 2


def _db(path, wal: bool) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.commit()
    conn.close()
    return f"sqlite:///{path}"


def _synchronous(url: str) -> int:
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as conn:
        conn.execute(text("INSERT INTO t VALUES (1)"))  # still writable
        value = conn.execute(text("PRAGMA synchronous")).scalar()
    engine.dispose()
    return value


def test_only_wal_databases_under_the_dagster_folder_are_relaxed(tmp_path):
    dagster = tmp_path / "home" / "dagster"
    relax_sync(dagster)
    assert _synchronous(_db(dagster / "history" / "runs.db", wal=True)) == NORMAL
    assert _synchronous(_db(dagster / "journal.db", wal=False)) == FULL
    assert _synchronous(_db(tmp_path / "elsewhere" / "runs.db", wal=True)) == FULL


def test_the_home_instance_run_and_event_storage_are_relaxed(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    instance = home_instance(home)
    with instance.run_storage.connect() as conn:
        assert conn.execute(text("PRAGMA synchronous")).scalar() == NORMAL
    with instance.event_log_storage.index_connection() as conn:
        assert conn.execute(text("PRAGMA synchronous")).scalar() == NORMAL
    assert instance.get_runs(limit=1) == []  # the storage still works
