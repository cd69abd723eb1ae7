"""Dagster's sqlite storage during `ltm ingest`: commits are not flushed one by one and the WAL is not
checkpointed at every close, yet everything a run stored is there for a new instance afterwards, and
databases outside the home's `dagster/` folder are left as SQLite makes them."""

import sqlite3

from click.testing import CliRunner
from dagster import DagsterInstance
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from cli.app import main
from ltm.home import Home
from pipelines.run import home_instance
from pipelines.sqlite_sync import quick_commits


def _synchronous(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text("PRAGMA synchronous")).scalar()


def test_within_the_block_commits_stay_in_the_wal_and_a_new_instance_reads_them_after(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    with quick_commits(home.dagster):
        instance = home_instance(home)
        instance.add_dynamic_partitions("repos", ["alpha", "beta"])
        wal = home.dagster / "history" / "runs.db-wal"
        # Dagster closed every connection it opened; a kept one stops the close from checkpointing
        assert wal.exists() and wal.stat().st_size > 0
        engine = create_engine(f"sqlite:///{home.dagster / 'history' / 'runs.db'}", poolclass=NullPool)
        assert _synchronous(engine) == 1  # NORMAL: a commit is not flushed on its own
        assert instance.get_dynamic_partitions("repos") == ["alpha", "beta"]
    assert not wal.exists() or wal.stat().st_size == 0  # the last close checkpointed it
    fresh = DagsterInstance.from_config(str(home.dagster))
    assert fresh.get_dynamic_partitions("repos") == ["alpha", "beta"]
    assert _synchronous(engine) == 2  # after the block: SQLite's default (FULL) again


def test_databases_outside_the_home_are_left_alone(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    other = tmp_path / "other.db"
    with quick_commits(home.dagster):
        engine = create_engine(f"sqlite:///{other}", poolclass=NullPool)
        assert _synchronous(engine) == 2
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "delete"


def test_an_ingest_leaves_its_runs_readable_and_no_wal_behind(repo, home_dir):
    res = CliRunner().invoke(main, ["ingest", str(repo.path), "--embedder", "hash", "--home", str(home_dir), "-q"])
    assert res.exit_code == 0, res.output
    history = home_dir / "dagster" / "history"
    left = [p for p in history.rglob("*-wal") if p.stat().st_size > 0]
    assert left == []  # every database checkpointed when the command let go of it
    runs = DagsterInstance.from_config(str(home_dir / "dagster")).get_runs()
    assert [r.job_name for r in runs] == ["ingest"]
    with sqlite3.connect(history / "runs.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
