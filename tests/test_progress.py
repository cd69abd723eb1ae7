"""ltm.progress as the stages report it: totals known up front, the last report at the total, nobody told when nobody listens."""

from __future__ import annotations

from pathlib import Path

from ltm import progress
from ltm.lake import Lake
from ltm.stages.history import HistoryOptions, stage_history
from ltm.vectors import VectorStore
from tests.builder import RepoBuilder
from tests.test_vectors import _rows


def _repo(path: Path, commits: int) -> Path:
    b = RepoBuilder(path)
    for i in range(commits):
        b.write("a.py", f"def f():\n    return {i}\n").commit(f"change {i}")
    return b.path


def test_history_reports_commits_against_the_bounded_total(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", 12)
    seen: list[progress.Progress] = []
    assert not progress.listened()
    with progress.listening(seen.append):
        assert progress.listened()
        stats = stage_history(repo, "repo", Lake(tmp_path / "lake"), None, HistoryOptions(max_commits=5, workers=1))
    assert not progress.listened()
    commits = [p for p in seen if p.stage == "commits"]
    assert stats.commits_mined == 5
    assert commits[0].done == 0 and {p.total for p in commits} == {5}
    assert commits[-1].finished and commits[-1].done == 5 and commits[-1].eta_s is None


def test_nobody_listening_the_history_is_not_counted(tmp_path: Path, monkeypatch) -> None:
    """A library user or a run from the UI pays no `rev-list --count` for a bar nobody draws."""
    import ltm.extract.history.mine as mine

    def count(*args: object, **kwargs: object) -> int:
        raise AssertionError("counted without a listener")

    monkeypatch.setattr(mine, "count_commits", count)
    stats = stage_history(_repo(tmp_path / "repo", 3), "repo", Lake(tmp_path / "lake"), None, HistoryOptions(workers=1))
    assert stats.commits_mined == 3


def test_vectors_report_the_rows_written(tmp_path: Path) -> None:
    seen: list[progress.Progress] = []
    with progress.listening(seen.append):
        VectorStore(tmp_path / "v").upsert_repo("r", _rows("r", ["a", "b", "c"]))
    vectors = [p for p in seen if p.stage == "vectors"]
    assert (vectors[0].done, vectors[0].total, vectors[0].unit) == (0, 3, "rows")
    assert vectors[-1].finished and vectors[-1].done == 3


def test_a_stage_with_nothing_to_do_tells_nothing(tmp_path: Path) -> None:
    seen: list[progress.Progress] = []
    with progress.listening(seen.append):
        with progress.tracker("embeddings", 0, "texts") as bar:
            bar.advance(0)
        VectorStore(tmp_path / "v").upsert_repo("r", _rows("r", ["a"]))
    assert {p.stage for p in seen} == {"vectors"}


def test_the_bar_fits_a_narrow_terminal(tmp_path: Path) -> None:
    """A bar wider than the terminal wraps, and `\\r` can no longer redraw it: every draw fits the width."""
    import fcntl
    import os
    import struct
    import subprocess
    import sys
    import termios

    script = (
        "from cli.progress import View\nfrom ltm.progress import Progress\nv = View('terminal')\n"
        "for done in (0, 1234, 6000):\n"
        "    v.progress(Progress('commits', done, 6489, 'commits', 30.0))\n"
        "v.done('done: requests in 30.0s')\n"
    )
    primary, secondary = os.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    proc = subprocess.run([sys.executable, "-c", script], stderr=secondary, stdout=subprocess.DEVNULL, timeout=60,
                          cwd=Path(__file__).resolve().parents[1])
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if b"done: requests" in out:
            break
    os.close(primary)
    assert proc.returncode == 0
    draws = [d.replace("\033[K", "") for d in out.decode().replace("\r\n", "\n").split("\r") if "commits" in d]
    assert len(draws) == 3 and "1234/6489" in draws[1]
    assert all(len(d.rstrip("\n")) < 60 for d in draws), draws
