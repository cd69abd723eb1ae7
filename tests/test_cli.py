"""The `ltm` command line, end to end, through click's runner (in-process, real stores)."""

import json

import click
import pytest
from click.testing import CliRunner

from cli import main
from tests.builder import RepoBuilder


def run(*args, ok=True):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    if ok:
        assert res.exit_code == 0, res.output
    return res


def test_every_command_has_help_text():
    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, [*path, name])

    for path, cmd in walk(main, []):
        assert cmd.help and len(cmd.help) > 20, path
        res = run(*path, "--help")
        assert "Usage:" in res.output
        for p in cmd.params:
            if isinstance(p, click.Option):
                assert p.help, (path, p.name)


def test_ingest_twice_gives_identical_stats_and_clean_reconcile(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    first = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert first["nodes"]["Commit"] == 2 and first["nodes"]["Function"] == 6
    assert first["rels"]["HAS_METHOD"] == 3 and first["rels"]["PARENT_OF"] == 1
    assert first["vectors"] == 2 + 6 + 2 + 3 + 1  # commits, functions, classes, modules, README doc memory
    run("ingest", repo.path, "--home", home_dir)
    second = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert second == first
    report = json.loads(run("reconcile", "--json", "--home", home_dir).output)
    assert report["ok"] is True and report["coverage"] == 1.0
    hits = json.loads(run("query", "validate the token signature", "--json", "--home", home_dir).output)
    assert hits and all({"graph_entity_id", "score", "content"} <= set(h) for h in hits)


def test_new_commit_shows_up_on_the_next_ingest(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    repo.write("app/extra.py", "def added_later():\n    return 1\n").commit("Add extra")
    run("ingest", repo.path, "--home", home_dir)
    stats = json.loads(run("stats", "--json", "--home", home_dir).output)
    assert stats["nodes"]["Commit"] == 3 and stats["nodes"]["Function"] == 7


@pytest.mark.parametrize("case", ["not_a_repo", "empty_repo", "missing_path"])
def test_bad_repository_is_one_clear_line_and_nothing_written(tmp_path, home_dir, case):
    target = tmp_path / case
    if case == "not_a_repo":
        target.mkdir()
    elif case == "empty_repo":
        RepoBuilder(target)
    res = run("ingest", target, "--home", home_dir, "--embedder", "hash", ok=False)
    assert res.exit_code != 0
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not home_dir.exists()


@pytest.mark.parametrize("command", [["stats"], ["reconcile"], ["query", "anything"]])
def test_missing_home_is_one_clear_line(tmp_path, command):
    res = run(*command, "--home", tmp_path / "nowhere", ok=False)
    assert res.exit_code != 0
    assert "does not exist" in res.output and "ltm ingest" in res.output
    assert not (tmp_path / "nowhere").exists()


def test_home_whose_parent_is_missing_is_refused(repo, tmp_path):
    res = run("ingest", repo.path, "--home", tmp_path / "a" / "b", "--embedder", "hash", ok=False)
    assert res.exit_code != 0 and "parent directory" in res.output


def test_switching_embedder_on_a_home_is_refused(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    res = run("ingest", repo.path, "--home", home_dir, "--embedder", "local", ok=False)
    assert res.exit_code != 0 and "was built with --embedder hash" in res.output


def test_run_made_by_ingest_is_recorded_in_the_homes_dagster_instance(repo, home_dir):
    from dagster import DagsterInstance, DagsterRunStatus

    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    instance = DagsterInstance.from_config(str(home_dir / "dagster"))
    runs = instance.get_runs()
    assert all(r.status == DagsterRunStatus.SUCCESS for r in runs)
    # one repository: one run of `ingest`, its extraction and the home's stores (a batch: `extract` each, then `stores`)
    assert [r.job_name for r in runs] == ["ingest"] and runs[0].tags["dagster/partition"] == "sample"
    events = [r.event_log_entry.dagster_event for r in instance.get_records_for_run(runs[0].run_id).records]
    materialized = {e.asset_key.to_user_string() for e in events if e is not None and e.is_step_materialization}
    assert {"commits", "bugs", "embeddings", "graph", "vectors", "reconciliation"} <= materialized
    assert instance.get_dynamic_partitions("repos") == ["sample"]
