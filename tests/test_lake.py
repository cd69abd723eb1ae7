import pytest

from ltm.lake import Lake


def _fn(i, repo="r"):
    return {"id": f"fn:{repo}:a.py:f{i}", "repo": repo, "vector_id": f"vec_{i}", "name": f"f{i}"}


def test_stage_replaces_partition_and_keeps_other_repos(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Function", [_fn(1), _fn(2)])
    with lake.write("s") as w:
        w.write("Function", [_fn(9, "s")])
    with lake.write("r") as w:
        w.write("Function", [_fn(3)])
    assert sorted(lake.read("Function", "r").column("id").to_pylist()) == ["fn:r:a.py:f3"]
    assert lake.read("Function").num_rows == 2
    assert lake.repos() == ["r", "s"]


def test_failed_stage_leaves_previous_partition_untouched(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Function", [_fn(1)])
        w.write("Class", [])
    with pytest.raises(RuntimeError):
        with lake.write("r") as w:
            w.write("Function", [_fn(2)])
            raise RuntimeError("crash between two tables")
    assert lake.read("Function", "r").column("id").to_pylist() == ["fn:r:a.py:f1"]
    assert not list((tmp_path / "lake" / "Function").glob(".stage-*"))


def test_unwritten_table_reads_empty_with_schema(tmp_path):
    t = Lake(tmp_path / "lake").read("Commit")
    assert t.num_rows == 0 and "committed_at" in t.schema.names


def test_a_streamed_table_is_seen_only_when_the_stage_ends_and_never_after_a_failure(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Function", [_fn(1)])
    with pytest.raises(RuntimeError):
        with lake.write("r") as w:
            s = w.stream("Function", keep=True)
            s.add([_fn(2)])
            assert lake.read("Function", "r").column("id").to_pylist() == ["fn:r:a.py:f1"]  # not live yet
            raise RuntimeError("killed while mining")
    assert lake.read("Function", "r").column("id").to_pylist() == ["fn:r:a.py:f1"]
    with lake.write("r") as w:
        s = w.stream("Function", keep=True)
        s.add([_fn(2)])
        s.add([])
        s.add([_fn(3)])
    assert lake.read("Function", "r").column("id").to_pylist() == ["fn:r:a.py:f1", "fn:r:a.py:f2", "fn:r:a.py:f3"]
    assert w.rows["Function"] == 2
    with lake.write("r") as w:
        w.stream("Function")  # no rows, not kept: the table is empty, with its schema
    assert lake.read("Function", "r").num_rows == 0 and len(lake.files("Function", "r")) == 1


def test_an_append_adds_one_file_and_never_rewrites_the_others(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Function", [_fn(1)])
    first = lake.files("Function", "r")[0]
    inode = first.stat().st_ino
    for i in (2, 3):
        with lake.write("r") as w:
            w.append("Function", [_fn(i)])
    assert [f.name for f in lake.files("Function", "r")] == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert first.stat().st_ino == inode  # the file readers hold stays the same file
    assert sorted(lake.read("Function", "r").column("name").to_pylist()) == ["f1", "f2", "f3"]
    with pytest.raises(RuntimeError):
        with lake.write("r") as w:
            w.append("Function", [_fn(4)])
            raise RuntimeError("crash before the commit")
    assert lake.read("Function", "r").num_rows == 3
    assert not list((tmp_path / "lake" / "Function").glob(".stage-*"))


def test_an_append_to_a_new_partition_creates_it(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.append("Function", [_fn(1)])
        w.append("Class", [])
    assert lake.read("Function", "r").column("name").to_pylist() == ["f1"]
    assert lake.read("Class", "r").num_rows == 0 and lake.files("Class", "r")  # an empty file keeps the schema


def test_replacing_files_keeps_the_parts_added_since_and_their_order(tmp_path):
    import pyarrow.parquet as pq

    lake = Lake(tmp_path / "lake")
    for i in range(3):
        with lake.write("r") as w:
            w.append("Function", [_fn(i)])
    snapshot = lake.files("Function", "r")
    merged = lake.read("Function", "r")  # read without a lock, as the fold does
    with lake.write("r") as w:
        w.append("Function", [_fn(9)])  # an add lands between the read and the swap
    with lake.write("r") as w:
        assert w.replace_files("Function", snapshot, merged)
    files = lake.files("Function", "r")
    assert [f.name for f in files] == ["part-00000.parquet", "part-00003.parquet"]
    assert [pq.read_table(f).column("name").to_pylist() for f in files] == [["f0", "f1", "f2"], ["f9"]]
    with lake.write("r") as w:  # a snapshot whose files are gone (folded since) swaps nothing
        assert not w.replace_files("Function", snapshot, merged)
    assert lake.read("Function", "r").num_rows == 4


def test_a_scan_hands_out_the_table_in_batches_of_at_most_the_rows_asked(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        stream = w.stream("Function")
        for part in range(3):
            stream.add([_fn(10 * part + i) for i in range(5)])
    batches = list(lake.scan("Function", "r", ["id", "name"], batch_rows=2))
    assert max(b.num_rows for b in batches) == 2 and len(batches) >= 8
    assert [i for b in batches for i in b.column("id").to_pylist()] == lake.read("Function", "r").column("id").to_pylist()
    assert batches[0].schema.names == ["id", "name"]
    assert list(lake.scan("Function", "missing", ["id"])) == []
