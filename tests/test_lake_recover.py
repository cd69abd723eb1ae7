"""A kill between the two renames of a lake commit leaves a partition under `.old-`; the next write
of that partition puts it back first, also when the write appends (the history's incremental runs)."""

from __future__ import annotations

from ltm.lake import Lake


def _commit_rows(n):
    return [{"id": f"commit:r:{i:040d}", "repo": "r", "sha": f"{i:040d}", "message": f"m{i}"} for i in range(n)]


def test_append_after_a_kill_between_the_renames_keeps_the_old_rows(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Commit", _commit_rows(3))
    final = lake.partition("Commit", "r")
    final.rename(final.with_name(f".old-{final.name}-deadbeef"))  # killed after the first rename
    with lake.write("r") as w:
        w.append("Commit", [{"id": "commit:r:new", "repo": "r", "sha": "f" * 40, "message": "new"}])
    shas = sorted(r["sha"] for r in lake.read("Commit", "r").to_pylist())
    assert len(shas) == 4 and "f" * 40 in shas
    assert not list((tmp_path / "lake" / "Commit").glob(".old-*"))


def test_append_clears_staging_a_kill_left(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Commit", _commit_rows(2))
    stale = tmp_path / "lake" / "Commit" / ".stage-r-0badc0de"
    stale.mkdir()
    with lake.write("r") as w:
        w.append("Commit", _commit_rows(1))
    assert not stale.exists()


def test_append_clears_a_staged_file_a_kill_left(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Commit", _commit_rows(2))
    stale = tmp_path / "lake" / "Commit" / ".stage-r-0badf11e"
    stale.write_bytes(b"half a parquet file")  # an append's staged file, the commit never reached
    with lake.write("r") as w:
        w.append("Commit", _commit_rows(1))
    assert not stale.exists()
    assert lake.read("Commit", "r").num_rows == 3
