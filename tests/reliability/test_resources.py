"""A full disk and a read-only home: a clear error, the home as it was, and a clean next run.

Both need a small filesystem of their own: a tmpfs mounted for the test (root only; skipped
otherwise, with the recorded run in RELIABILITY.md).
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.reliability.harness import assert_reconciled, ltm, one_line_error, snapshot, stats


@pytest.fixture
def small_fs(tmp_path):
    mnt = tmp_path / f"fs-{uuid.uuid4().hex[:6]}"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (recorded run in RELIABILITY.md)")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mnt)], capture_output=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(path: Path) -> Path:
    """Write zeros until the filesystem is full; returns the filler file."""
    filler = path / "filler"
    chunk = b"\0" * (1 << 20)
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
                f.flush()
        except OSError:
            pass
    with open(filler, "ab", buffering=0) as f:  # the last bytes, below one chunk
        try:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
        except OSError:
            pass
    return filler


def _ingest(path, home, check=True):
    return ltm("ingest", path, "--home", home, "--embedder", "hash", check=check)


@pytest.mark.slow
def test_full_disk_is_a_clear_error_and_loses_nothing(two_versions, small_fs):
    b, grow = two_versions
    home = small_fs / "home"
    _ingest(b.path, home)
    before, v1 = snapshot(home), stats(home)
    grow()
    filler = _fill(small_fs)
    line = one_line_error(_ingest(b.path, home, check=False))
    assert "no space left" in line.lower() or "disk is full" in line.lower(), line
    filler.unlink()
    after = snapshot(home)
    assert {k: v for k, v in after.items() if not k.startswith("lake/")} == {
        k: v for k, v in before.items() if not k.startswith("lake/")
    }
    assert stats(home) == v1
    assert_reconciled(home)
    _ingest(b.path, home)
    assert stats(home)["nodes"]["Function"] == v1["nodes"]["Function"] + 40
    assert_reconciled(home)


@pytest.mark.slow
def test_read_only_home_is_a_clear_error_and_readers_still_work(two_versions, small_fs):
    b, grow = two_versions
    home = small_fs / "home"
    _ingest(b.path, home)
    before = snapshot(home)
    grow()
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    line = one_line_error(_ingest(b.path, home, check=False))
    assert "read-only" in line.lower(), line
    assert snapshot(home) == before
    assert ltm("query", "token", "--home", home).returncode == 0
    subprocess.run(["mount", "-o", "remount,rw", str(small_fs)], check=True)
    assert_reconciled(home)
