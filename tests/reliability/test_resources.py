"""A full disk and a read-only home: a clear error, the home as it was, and a clean next run.

Both need a small filesystem of their own for the home: a 96 MB tmpfs mounted for the test. That
needs root and a kernel that allows it; elsewhere the tests skip and say why.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.reliability.harness import Scenario, assert_reconciled, leftovers, ltm, one_line_error, snapshot

MIB = 1 << 20


@pytest.fixture
def small_fs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a 96 MB tmpfs for the home needs root: run as root (CI does) to test a full "
                    "disk and a read-only home")
    mnt = tmp_path / f"fs-{uuid.uuid4().hex[:6]}"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"this machine refuses to mount a tmpfs for the home ({res.stderr.strip()}): "
                    "a container needs CAP_SYS_ADMIN for the full-disk and read-only cases")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(fs: Path, leave: int) -> Path:
    """Fill the file system with one file of zeros, then give back `leave` bytes; returns the file."""
    filler = fs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for chunk in (MIB, 4096):  # unbuffered: every byte written is on the file system
            while True:
                try:
                    os.write(fd, b"\0" * chunk)
                except OSError:
                    break
    finally:
        os.close(fd)
    st = os.statvfs(fs)
    assert st.f_bavail * st.f_frsize < 4096 * 2, "the filler left space behind"
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


@pytest.mark.slow
@pytest.mark.parametrize("leave", [0, 4 * MIB], ids=["disk_full", "full_during_the_graph_build"])
def test_full_disk_is_a_clear_error_and_loses_nothing(two_versions, tmp_path, small_fs, leave):
    s = Scenario(*two_versions, tmp_path, home=small_fs / "home").start()
    filler = _fill(small_fs, leave)
    line = one_line_error(s.ingest(check=False))
    assert "no space left on" in line or "disk is full" in line, line
    assert str(s.home) in line and "free some space on its disk" in line, line
    # still full: readers answer from v1's graph and vectors, linked, and nothing is half-written
    s.serves_v1()
    assert leftovers(s.home) == []
    assert len(list((s.home / "graph" / "builds").glob("*.kuzu"))) == 1
    # freeing the space is all it takes: the next run completes and equals a fresh v2 home
    filler.unlink()
    s.recovers()
    assert s.v1 != snapshot(s.home)


@pytest.mark.slow
def test_read_only_home_is_a_clear_error_and_readers_still_work(two_versions, tmp_path, small_fs):
    s = Scenario(*two_versions, tmp_path, home=small_fs / "home").start()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    try:
        line = one_line_error(s.ingest(check=False))
        assert "read-only" in line.lower() and str(s.home) in line, line
        assert snapshot(s.home) == s.v1
        assert ltm("query", "token", "--home", s.home).returncode == 0
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    s.recovers()


@pytest.mark.slow
def test_memory_add_needs_no_room_for_a_copy_of_the_graph(two_versions, tmp_path, small_fs):
    """An online add used to copy the graph build (and Kuzu 0.11.3 aborts when a write fills the
    disk): it now writes small lake files and one vector row, and readers overlay it on the build."""
    s = Scenario(*two_versions, tmp_path, home=small_fs / "home").start()
    build = next((s.home / "graph" / "builds").glob("*.kuzu"))
    graph_bytes = sum(p.stat().st_blocks * 512 for p in build.parent.glob(build.name + "*") if p.is_file())
    filler = _fill(small_fs, graph_bytes // 2)  # room for the lake and vector writes, not for a graph copy
    out = json.loads(ltm("memory", "add", "Validate tokens after stripping blanks", "--json", "--home", s.home).stdout)
    assert out["in_graph"] is True
    assert [b.name for b in (s.home / "graph" / "builds").glob("*.kuzu")] == [build.name]
    hits = json.loads(ltm("query", "Validate tokens after stripping blanks", "--json", "--home", s.home).stdout)
    assert hits[0]["graph_entity_id"] == out["graph_entity_id"]
    filler.unlink()
    assert_reconciled(s.home)


def test_readers_that_never_close_do_not_run_out_of_address_space(scenario):
    """Kuzu reserves 8 TB of address space per open database: 40 HybridLTM readers left unclosed
    (their databases wait in reference cycles) used to fail with `Mmap ... failed` after about a dozen."""
    import gc

    from ltm.query import HybridLTM

    scenario.ingest()
    gc.disable()  # as between two runs of the cycle collector in a busy reader
    try:
        answers = [len(HybridLTM(scenario.home).query("validate the token signature", top_k=3)) for _ in range(40)]
    finally:
        gc.enable()
    assert answers == [3] * 40
