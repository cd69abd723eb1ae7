"""Restartable backfill windows: a long history mined in chunks that stop and resume."""

import json

from click.testing import CliRunner
from dagster import DagsterInstance

from ltm.backfill import plan_windows
from ltm.stages.history import history_cursor
from cli import main
from ltm.home import Home
from ltm.lake import Lake
from tests.builder import RepoBuilder


def ten_commits(path) -> tuple[RepoBuilder, list[str]]:
    """Ten commits one hour apart from 2023-11-14 23:13 UTC: the first on the 14th, the rest on the 15th."""
    b = RepoBuilder(path)
    shas = [b.write(f"f{i}.py", f"def f{i}():\n    return {i}\n").commit(f"Add f{i}") for i in range(1, 11)]
    return b, shas


def run(*args, ok=True):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert res.exit_code == 0, res.output
    return res


def test_windows_by_commits_and_by_days_cover_the_chain_oldest_first(tmp_path):
    repo, shas = ten_commits(tmp_path / "r")
    by4 = plan_windows(repo.path, None, None, every_commits=4)
    assert [(w.commits, w.end) for w in by4] == [(4, shas[3]), (4, shas[7]), (2, shas[9])]
    assert [(w.commits, w.end) for w in plan_windows(repo.path, None, shas[3], every_commits=4)] == [
        (4, shas[7]), (2, shas[9]),
    ]
    assert plan_windows(repo.path, None, shas[9], every_commits=4) == []
    assert [(w.commits, w.end) for w in plan_windows(repo.path, None, None, every_days=1)] == [(1, shas[0]), (9, shas[9])]


def test_backfill_stops_after_max_windows_and_resumes_from_the_cursor(tmp_path):
    repo, shas = ten_commits(tmp_path / "r")
    home = tmp_path / "home"
    out = run("backfill", repo.path, "--window-commits", 4, "--max-windows", 2, "--home", home, "--embedder", "hash").output
    assert "3 windows, 2 now" in out and "1 windows left" in out
    cursor = history_cursor(Lake(home / "lake"), "r")
    assert cursor["tip_sha"] == shas[7] and cursor["commits"] == 8 and cursor["complete"] is True
    out = run("backfill", repo.path, "--window-commits", 4, "--home", home).output
    assert "2 first-parent commits to mine in 1 windows" in out and "done: r backfilled" in out
    stats = json.loads(run("stats", "--json", "--home", home).output)
    assert stats["nodes"]["Commit"] == 10 and stats["nodes"]["Function"] == 10
    assert stats["rels"]["PARENT_OF"] == 9  # windows join up: no edge lost at a window boundary
    assert json.loads(run("reconcile", "--json", "--home", home).output)["ok"] is True
    runs = DagsterInstance.from_config(str(Home.resolve(home).dagster)).get_runs()
    ends = sorted(r.tags["ltm/window_end"] for r in runs if "ltm/window_end" in r.tags)
    assert ends == sorted([shas[3], shas[7], shas[9]])  # three window runs, then one full ingest run
    assert len(runs) == 4  # ... which extracts the repository and builds the stores
    assert [r.job_name for r in runs].count("ingest") == 1  # the stores built once, at the end
    assert all(r.status.value == "SUCCESS" for r in runs)


def test_window_size_must_be_given_once(tmp_path):
    repo, _ = ten_commits(tmp_path / "r")
    res = run("backfill", repo.path, "--home", tmp_path / "home", ok=False)
    assert res.exit_code != 0 and "--window-commits" in res.output
    assert not (tmp_path / "home").exists()
