"""`ltm ingest` with nothing new makes no run and rewrites nothing; anything new makes a full run."""

import json

from click.testing import CliRunner

from cli import main


def run(*args):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


def _runs(home_dir):
    from dagster import DagsterInstance

    return len(DagsterInstance.from_config(str(home_dir / "dagster")).get_runs())


def _lake_files(home_dir):
    return {p: p.stat().st_mtime_ns for p in (home_dir / "lake").rglob("*") if p.is_file()}


def test_second_ingest_with_nothing_new_makes_no_run_and_writes_nothing(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    before = _lake_files(home_dir)
    assert _runs(home_dir) == 1  # one run: the repository's extraction, then the home's stores
    run("query", "validate the token", "--home", home_dir)  # reading never counts as a change
    res = run("ingest", repo.path, "--home", home_dir)
    assert "up to date" in res.output and "nothing new" in res.output
    assert _runs(home_dir) == 1
    assert _lake_files(home_dir) == before


def test_a_new_commit_makes_a_run_again(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    run("ingest", repo.path, "--home", home_dir)
    repo.write("app/extra.py", "def added_later():\n    return 1\n").commit("Add extra")
    res = run("ingest", repo.path, "--home", home_dir)
    assert "up to date" not in res.output
    assert _runs(home_dir) == 2
    assert json.loads(run("stats", "--json", "--home", home_dir).output)["nodes"]["Commit"] == 3


def test_an_imported_memory_other_options_or_full_history_make_a_run(repo, home_dir, tmp_path):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps({"id": "n1", "content": "parse_header trims the value", "type": "semantic"}) + "\n")
    run("memory", "import", notes, "--home", home_dir)
    assert "up to date" not in run("ingest", repo.path, "--home", home_dir).output
    assert "up to date" in run("ingest", repo.path, "--home", home_dir).output
    assert "up to date" not in run("ingest", repo.path, "--home", home_dir, "--max-commits", "1").output
    assert "up to date" not in run("ingest", repo.path, "--home", home_dir, "--full-history").output
    assert _runs(home_dir) == 4  # four ingests of one repository, one run each


def test_a_damaged_graph_build_is_built_again(repo, home_dir):
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    build = home_dir / "graph" / "builds" / (home_dir / "graph" / "CURRENT").read_text().strip()
    build.write_bytes(b"\0" * build.stat().st_size)
    res = run("ingest", repo.path, "--home", home_dir)
    assert "up to date" not in res.output
    assert json.loads(run("reconcile", "--json", "--home", home_dir).output)["ok"] is True


def test_ingesting_another_repository_keeps_the_first_up_to_date(repo, home_dir, tmp_path):
    from tests.builder import sample_repo

    other = sample_repo(tmp_path / "other")
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    run("ingest", other.path, "--home", home_dir)
    assert "up to date" in run("ingest", repo.path, "--home", home_dir).output
    assert _runs(home_dir) == 2  # two ingests of one repository, one run each
