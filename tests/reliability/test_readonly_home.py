"""A home on a read-only file system is named as read-only, never as a full disk (a read-only file
system reports no free space, which the space check before a graph amendment used to blame)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.builder import sample_repo
from tests.reliability.harness import ltm, one_line_error


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def readonly_full_home(tmp_path):
    """An ingested home copied onto a tmpfs just large enough for it, then remounted read-only."""
    repo = sample_repo(tmp_path / "sample")
    src = tmp_path / "src"
    ltm("ingest", repo.path, "--home", src, "--embedder", "hash")
    size = sum(p.stat().st_size for p in src.rglob("*") if p.is_file()) + (4 << 20)
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if not _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)):
        pytest.skip("mounting a tmpfs needs root in a container that allows it")
    try:
        shutil.copytree(src, mnt / "home", symlinks=True)
        assert _mount("-o", "remount,ro", str(mnt))
        yield mnt / "home"
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_memory_add_on_a_read_only_home_says_read_only(readonly_full_home):
    err = one_line_error(ltm("memory", "add", "a note", "--home", readonly_full_home, check=False))
    assert "read-only" in err and "no space" not in err, err
    hits = ltm("query", "validate the token", "--json", "--home", readonly_full_home)  # readers still answer
    assert hits.stdout.strip().startswith("[")
