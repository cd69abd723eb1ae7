"""A partition's part files are read once while unchanged, again when changed, forgotten when gone."""

import os

import pyarrow as pa
import pyarrow.parquet as pq

from ltm.part_files import PartFiles


def test_each_part_file_is_read_once_until_it_changes(tmp_path):
    reads = []

    def load(path):
        reads.append(path.name)
        return pq.read_table(path).column("id").to_pylist()

    write = lambda name, ids: pq.write_table(pa.table({"id": ids}), tmp_path / name)  # noqa: E731
    files = PartFiles(tmp_path, load, list)
    assert files.refresh() is False and files.values() == []  # nothing there yet
    write("part-00000.parquet", ["a"])
    write("part-00001.parquet", ["b"])
    assert files.refresh() is True and files.values() == [["a"], ["b"]]
    assert files.refresh() is False and reads == ["part-00000.parquet", "part-00001.parquet"]
    write("part-00001.parquet", ["b", "c"])
    os.utime(tmp_path / "part-00001.parquet", ns=(1, 1))  # a rewrite, whatever the clock says
    assert files.refresh() is True and files.values() == [["a"], ["b", "c"]]
    assert reads[2:] == ["part-00001.parquet"]  # only the changed file again
    (tmp_path / "part-00000.parquet").unlink()
    write("part-00002.parquet", ["d"])
    skip = {k for k in files.keys() if k[0].endswith("part-00002.parquet")}
    assert files.refresh(skip) is True and files.values() == [["b", "c"], []]  # skipped: never read
    assert "part-00002.parquet" not in reads
