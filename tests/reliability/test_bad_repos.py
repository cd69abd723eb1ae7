"""Hostile and broken repositories, through the real `ltm` process.

A repository that cannot be mined is refused with one clear line and leaves the home as it was;
one with odd content (submodules, LFS pointers, a 200 MB file, non-UTF-8 names, symlinks out of
the tree, `..` in a tree) is ingested with those entries skipped or kept as the test states.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ltm.lake import Lake
from tests.builder import RepoBuilder, sample_repo
from tests.reliability.harness import assert_reconciled, ltm, one_line_error, snapshot, stats

HUGE = 200 * 1024 * 1024


def _ingest(path, home, check=True):
    return ltm("ingest", path, "--home", home, "--embedder", "hash", check=check)


def _hash_object(b: RepoBuilder, size: int) -> str:
    """A blob of `size` zero bytes written straight into the object store (no work-tree file)."""
    with open("/dev/zero", "rb") as zeros:
        proc = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=b.path, input=zeros.read(size), capture_output=True, check=True
        )
    return proc.stdout.decode().strip()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> RepoBuilder:
    """The sample project plus every oddity a real repository can hold, in one HEAD commit."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "outside.py").write_text("OUTSIDE_SECRET = 1\n\ndef outside_secret():\n    return OUTSIDE_SECRET\n")
    b = sample_repo(root / "repo")
    b.write(b"caf\xe9.py", b"# caf\xe9, written in latin-1\ndef latin():\n    return '\xe9t\xe9'\n")
    b.write("app/garbled.py", b"def garbled():\n    return '\xff\xfe\x80'\n")
    os.symlink("/etc/passwd", b.path / "passwd.py")
    os.symlink("../outside.py", b.path / "up.py")
    b.write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n")
    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "ab" * 32 + "\nsize 123456789\n"
    b.write("weights.bin", pointer)
    b.write(".gitmodules", '[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = https://example.invalid/lib.git\n')
    b.git("add", "-A")
    b.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/lib")
    zeros = _hash_object(b, HUGE)
    b.git("update-index", "--add", "--cacheinfo", f"100644,{zeros},blobs/huge.py")
    b.git("update-index", "--add", "--cacheinfo", f"100644,{zeros},blobs/zeros.bin")
    tree = b.git("write-tree")
    # A tree with a `..` folder: git refuses to create one, but a crafted repository has it.
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=b.path, input=b"def evil():\n    return 1\n",
                          capture_output=True, check=True).stdout.decode().strip()
    sub = subprocess.run(["git", "mktree"], cwd=b.path, input=f"100644 blob {blob}\toutside.py\n".encode(),
                         capture_output=True, check=True).stdout.decode().strip()
    listing = subprocess.run(["git", "ls-tree", tree], cwd=b.path, capture_output=True, check=True).stdout.decode()
    root_tree = subprocess.run(["git", "mktree"], cwd=b.path, input=(listing + f"040000 tree {sub}\t..\n").encode(),
                               capture_output=True, check=True).stdout.decode().strip()
    env = {"GIT_AUTHOR_DATE": "1700100000 +0000", "GIT_COMMITTER_DATE": "1700100000 +0000",
           "GIT_AUTHOR_NAME": "Eve", "GIT_AUTHOR_EMAIL": "eve@example.com",
           "GIT_COMMITTER_NAME": "Eve", "GIT_COMMITTER_EMAIL": "eve@example.com"}
    commit = b.git("commit-tree", root_tree, "-p", "HEAD", "-m", "Add every oddity", env=env)
    b.git("update-ref", "refs/heads/main", commit)
    return b


@pytest.fixture(scope="module")
def hostile_home(hostile, tmp_path_factory) -> tuple[Path, object]:
    home = tmp_path_factory.mktemp("hostile-home") / "home"
    res = _ingest(hostile.path, home)
    return home, res


def test_hostile_repository_ingests_cleanly(hostile_home):
    home, res = hostile_home
    assert "Traceback" not in res.stderr
    s = stats(home)
    assert s["nodes"]["Commit"] == 3
    assert_reconciled(home)


def test_odd_entries_are_kept_or_skipped_as_stated(hostile_home):
    home, _ = hostile_home
    lake = Lake(home / "lake")
    files = {r["path"]: r for r in lake.read("File").to_pylist()}
    # kept as File rows: the LFS pointer (as the small text it is), the 200 MB blobs (size only),
    # the non-UTF-8 name (undecodable bytes escaped, so it stays unique)
    assert files["weights.bin"]["size"] == len(
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + "ab" * 32 + "\nsize 123456789\n"
    )
    assert files["blobs/huge.py"]["size"] == HUGE and files["blobs/zeros.bin"]["size"] == HUGE
    assert "caf\\xe9.py" in files
    # skipped: symlinks (never followed), the submodule, the `..` folder
    for absent in ("passwd.py", "up.py", "vendor/lib", "../outside.py"):
        assert absent not in files, absent
    functions = {(r["file_path"], r["name"]) for r in lake.read("Function").to_pylist()}
    assert ("caf\\xe9.py", "latin") in functions and ("app/garbled.py", "garbled") in functions
    assert not any(path.startswith("blobs/") for path, _ in functions)  # 200 MB: too large to parse
    assert not any(name in ("evil", "outside_secret") for _, name in functions)


def test_nothing_outside_the_repository_was_read(hostile_home):
    home, _ = hostile_home
    for p in (home / "lake").rglob("*.parquet"):
        data = p.read_bytes()
        assert b"root:x:0:0" not in data and b"OUTSIDE_SECRET" not in data, p


@pytest.mark.slow
def test_shallow_clone_ingests_without_parent_edges(tmp_path):
    src = sample_repo(tmp_path / "src")
    src.write("app/more.py", "def more():\n    return 2\n").commit("Add more")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{src.path}", str(shallow)], check=True)
    home = tmp_path / "home"
    _ingest(shallow, home)
    s = stats(home)
    assert s["nodes"]["Commit"] == 1 and s["rels"].get("PARENT_OF", 0) == 0
    assert s["nodes"]["Function"] == 7  # the six of the sample and `more`
    assert_reconciled(home)


@pytest.fixture(scope="module")
def good_home(tmp_path_factory) -> Path:
    """A home holding the ingested sample repository (copied by each case)."""
    root = tmp_path_factory.mktemp("good")
    home = root / "home"
    _ingest(sample_repo(root / "good").path, home)
    return home


def _break(kind: str, tmp_path: Path) -> Path:
    target = tmp_path / kind
    if kind == "not_a_repository":
        target.mkdir()
        (target / "main.py").write_text("def f():\n    return 1\n")
    elif kind == "empty":
        RepoBuilder(target)
    elif kind == "missing_path":
        pass
    elif kind in ("missing_blob", "missing_commit"):
        b = sample_repo(target)
        if kind == "missing_blob":
            sha = b.git("rev-parse", "HEAD:app/auth.py")
        else:
            sha = b.git("rev-parse", "HEAD~1")
        obj = b.path / ".git" / "objects" / sha[:2] / sha[2:]
        obj.chmod(0o644)
        obj.unlink()
    elif kind == "corrupt_blob":
        b = sample_repo(target)
        sha = b.git("rev-parse", "HEAD:app/auth.py")
        obj = b.path / ".git" / "objects" / sha[:2] / sha[2:]
        obj.chmod(0o644)
        obj.write_bytes(b"\x78\x9c garbage, not zlib")
    return target


@pytest.mark.parametrize(
    "kind, says",
    [
        # these three are also refused in-process by tests/test_cli.py: here the real process, heavy
        pytest.param("not_a_repository", "is not a git repository", marks=pytest.mark.slow),
        pytest.param("empty", "has no commits yet", marks=pytest.mark.slow),
        pytest.param("missing_path", "does not exist", marks=pytest.mark.slow),
        ("missing_commit", "failed"),  # a missing or corrupt blob is skipped and counted: test_missing_objects.py
    ],
)
def test_broken_repository_is_one_clear_line_and_the_home_is_unchanged(good_home, tmp_path, kind, says):
    home = tmp_path / "home"
    shutil.copytree(good_home, home, symlinks=True)
    before = snapshot(home)
    res = _ingest(_break(kind, tmp_path), home, check=False)
    line = one_line_error(res)
    assert says in line, line
    after = snapshot(home)
    # graph and vectors are untouched; so is the good repository's part of the lake
    assert {k: v for k, v in after.items() if not k.startswith("lake/")} == {
        k: v for k, v in before.items() if not k.startswith("lake/")
    }
    assert_reconciled(home)
    assert not list((home / "lake").glob("*/.stage-*"))
