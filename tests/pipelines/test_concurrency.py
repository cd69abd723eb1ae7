"""Two runs at once on one home: both finish (they wait for each other), and a second `ltm ingest` is refused."""

import json
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from dagster import DagsterInstance, DagsterRunStatus

from cli import main
from ltm.home import Home
from ltm.repos import register_local
from tests.builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[2]
RUN_ONE = (
    "import sys; from ltm.home import Home; from pipelines.run import ingest_partitions; "
    "ingest_partitions(Home.resolve(sys.argv[1]), [sys.argv[2]], 'hash')"
)


def _repo(path: Path, fn: str) -> RepoBuilder:
    b = RepoBuilder(path)
    b.write(f"{fn}.py", f"def {fn}():\n    return 1\n").commit(f"Add {fn}")
    return b


def test_two_runs_started_at_once_both_succeed(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    home.update_settings(embedder="hash")
    keys = [register_local(home, _repo(tmp_path / n, f"fn_{n}").path) for n in ("left", "right")]
    # what `ltm repo add` does: the instance's sqlite storage exists before any run starts
    # (two processes creating it at the same moment race in its schema migration)
    DagsterInstance.from_config(str(home.dagster)).add_dynamic_partitions("repos", keys)
    procs = [
        subprocess.Popen([sys.executable, "-c", RUN_ONE, str(home.root), key], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for key in keys
    ]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[-2000:] for o in outputs]
    runs = DagsterInstance.from_config(str(home.dagster)).get_runs()
    # each process's one run (`ingest`) extracts its repository and builds the stores after it
    assert sorted(r.tags["dagster/partition"] for r in runs if r.job_name == "ingest") == ["left", "right"]
    assert all(r.status == DagsterRunStatus.SUCCESS for r in runs)
    cli = CliRunner()
    stats = json.loads(cli.invoke(main, ["stats", "--json", "--home", str(home.root)]).output)
    assert stats["nodes"]["Repository"] == 2 and stats["nodes"]["Function"] == 2
    assert json.loads(cli.invoke(main, ["reconcile", "--json", "--home", str(home.root)]).output)["ok"] is True


REPO_ADD_AT = (
    "import sys, time; from cli import main; import pipelines.run\n"
    "while time.time() < float(sys.argv[1]): time.sleep(0.001)\n"
    "main(['repo', 'add', sys.argv[2], '--home', sys.argv[3]])"
)


def test_four_repo_adds_at_the_same_instant_on_a_fresh_home_all_register(tmp_path):
    # Without the home's `dagster` lock, Dagster's sqlite schema creation races: alembic fails with
    # "Online migration expected to match one row" or "more than one head" in some of the processes.
    names = ["one", "two", "three", "four"]
    paths = [_repo(tmp_path / n, f"fn_{n}").path for n in names]
    home = tmp_path / "home"
    start = time.time() + 20  # every process has imported everything by then (busy 2-core machine)
    procs = [
        subprocess.Popen([sys.executable, "-c", REPO_ADD_AT, str(start), str(p), str(home)], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for p in paths
    ]
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[-1500:] for o in outputs]
    # each printed its key on stdout and what to run next on stderr
    assert sorted(line for o in outputs for line in o.splitlines() if line in names) == sorted(names)
    assert all("registered " in o and "ltm ingest" in o for o in outputs)
    assert sorted(Home.resolve(home).registry()) == sorted(names)  # no registration lost either
    instance = DagsterInstance.from_config(str(home / "dagster"))
    assert sorted(instance.get_dynamic_partitions("repos")) == sorted(names)


def test_second_ingest_on_a_busy_home_is_refused_with_one_clear_line(tmp_path):
    repo = _repo(tmp_path / "r", "f")
    home = Home.resolve(tmp_path / "home").create()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from ltm.home import Home\n"
         "with Home.resolve(sys.argv[1]).lock('ingest'):\n    print('held', flush=True); time.sleep(120)",
         str(home.root)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        res = CliRunner().invoke(main, ["ingest", str(repo.path), "--home", str(home.root), "--embedder", "hash"])
    finally:
        holder.kill()
        holder.wait()
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "holds the ingest lock" in res.output and "wait for it to finish" in res.output
    assert home.registry() == {}  # nothing was registered while refused
