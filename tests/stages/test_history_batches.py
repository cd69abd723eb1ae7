"""The commits stage writes its rows in batches: the lake does not depend on the batch size."""

import pyarrow.parquet as pq

from ltm.lake import Lake
from ltm.stages.history import HistoryOptions, stage_history
from tests.extract.history.test_history import history_repo

TABLES = ("Commit", "PARENT_OF", "file_changes", "MODIFIES", "RENAMED_FROM", "past_functions", "past_classes",
          "past_files")


def _table(lake: Lake, table: str) -> list[tuple]:
    return sorted(tuple(sorted((k, str(v)) for k, v in r.items())) for r in lake.read(table, "h").to_pylist())


def _row_groups(lake: Lake, table: str) -> int:
    return sum(pq.ParquetFile(f).metadata.num_row_groups for f in lake.files(table, "h"))


def test_small_batches_write_the_same_lake_as_one_batch(tmp_path):
    b, _ = history_repo(tmp_path)
    whole, batched = Lake(tmp_path / "whole"), Lake(tmp_path / "batched")
    one = stage_history(b.path, "h", whole, None, HistoryOptions(batch_rows=1_000_000))
    small = stage_history(b.path, "h", batched, None, HistoryOptions(batch_rows=2))
    assert one.rows == small.rows and small.commits_mined == 6
    for table in TABLES:
        assert _table(batched, table) == _table(whole, table), table
    # The batched run really wrote MODIFIES piece by piece, in the order it was mined.
    assert _row_groups(batched, "MODIFIES") > 1 == _row_groups(whole, "MODIFIES")
    assert batched.read("Commit", "h")["sha"].to_pylist() == whole.read("Commit", "h")["sha"].to_pylist()


def test_incremental_run_in_small_batches_equals_a_full_mine(tmp_path):
    b, _ = history_repo(tmp_path)
    lake, full = Lake(tmp_path / "lake"), Lake(tmp_path / "full")
    opts = HistoryOptions(batch_rows=3)
    stage_history(b.path, "h", lake, None, opts)
    for n in range(3):
        b.write("app/engine.py", (b.path / "app/engine.py").read_text() + f"\n\ndef extra_{n}():\n    return {n}\n")
        b.commit(f"Add extra {n}")
    inc = stage_history(b.path, "h", lake, None, opts)
    assert (inc.mode, inc.commits_mined, inc.commits_total) == ("incremental", 3, 9)
    stage_history(b.path, "h", full, None)
    for table in TABLES:
        assert _table(lake, table) == _table(full, table), table
