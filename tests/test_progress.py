"""ltm.progress: what a stage reports, to whom, how often; and the plain view's pace (cli.live)."""

from __future__ import annotations

import io

from cli.live import PLAIN_EVERY, LiveView
from ltm import progress


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None, str, bool]] = []

    def progress(self, stage: str, done: int, total: int | None, unit: str, final: bool) -> None:
        self.calls.append((stage, done, total, unit, final))


def test_nobody_watching_reports_nothing_and_costs_no_total() -> None:
    rec = Recorder()
    assert not progress.active()
    with progress.counter("commits", 10, "commits") as c:
        c.add(3)
    with progress.reporting(rec):
        assert progress.active()
        with progress.counter("graph", 0, "tables") as c:  # nothing to do: no bar
            c.add()
    assert rec.calls == [] and not progress.active()


def test_a_large_stage_is_reported_a_bounded_number_of_times_ending_at_its_total() -> None:
    rec = Recorder()
    with progress.reporting(rec), progress.counter("embeddings", 100_000, "texts") as c:
        for _ in range(100_000):
            c.add()
    assert rec.calls[0] == ("embeddings", 0, 100_000, "texts", False)
    assert rec.calls[-1] == ("embeddings", 100_000, 100_000, "texts", True)
    assert len(rec.calls) <= progress.STEPS + 2
    done = [d for _, d, _, _, _ in rec.calls]
    assert done == sorted(done)


def test_plain_view_prints_a_running_stage_every_few_seconds_without_carriage_returns() -> None:
    now = [0.0]
    err = io.StringIO()
    view = LiveView("plain", err=err, out=io.StringIO(), clock=lambda: now[0])
    with progress.reporting(view), progress.counter("commits", 1000, "commits") as c:
        c.add(100)
        now[0] = PLAIN_EVERY / 2
        c.add(100)
        assert err.getvalue() == ""  # too soon
        now[0] = PLAIN_EVERY + 1
        c.add(100)
    view.stage("shop", "commits", {"summary": "mode=full commits=1000"})
    assert err.getvalue().splitlines() == ["  commits         300/1000 commits ...", "  commits         mode=full commits=1000"]


def test_history_stage_counts_the_commits_it_mines_of_the_bounded_total(tmp_path) -> None:
    from ltm.lake import Lake
    from ltm.stages.history import HistoryOptions, stage_history
    from tests.builder import RepoBuilder

    b = RepoBuilder(tmp_path / "repo")
    for i in range(12):
        b.write("a.py", f"def f():\n    return {i}\n").commit(f"change {i}")
    rec = Recorder()
    with progress.reporting(rec):
        stats = stage_history(b.path, "repo", Lake(tmp_path / "lake"), None, HistoryOptions(max_commits=5, workers=1))
    commits = [c for c in rec.calls if c[0] == "commits"]
    assert stats.commits_mined == 5
    assert commits[0] == ("commits", 0, 5, "commits", False) and commits[-1] == ("commits", 5, 5, "commits", True)
