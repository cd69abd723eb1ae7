"""The graph adapter's two engines (kuzu, ladybug): the same graph from the same lake, one engine per
process, and switching a home's engine (a blue/green rebuild from the lake).

Kuzu and LadybugDB cannot load in one process, so what compares them runs `ltm` in subprocesses.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltm.errors import GraphError
from ltm.graph.build import build_graph, current_build, list_builds
from ltm.graph.engine import ENGINES, default_engine, engine, open_database
from ltm.graph.read import counts, open_current
from tests.graph.test_build import _lake

ROOT = Path(__file__).resolve().parents[2]
# These pin both engines themselves (in subprocesses): the ladybug half of `make test` need not repeat them.
both_pinned = pytest.mark.skipif(default_engine() != "kuzu", reason="pins both engines itself; run in the kuzu half")
QUESTIONS = ["validate the token signature", "what calls parse_header", "who wrote the token code"]


def ltm(*args, engine_env: str | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LTM_GRAPH_ENGINE", None)
    if engine_env:
        env["LTM_GRAPH_ENGINE"] = engine_env
    res = subprocess.run([sys.executable, "-m", "cli", *map(str, args)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout


def answers(home: Path) -> dict:
    """What a user sees of a home: its counts and the ids of each question's hits, in order."""
    stats = json.loads(ltm("stats", "--json", "--home", home))
    hits = {q: [h["graph_entity_id"] or h["vector_id"] for h in json.loads(ltm("query", q, "--json", "--home", home))]
            for q in QUESTIONS}
    return {"nodes": stats["nodes"], "rels": stats["rels"], "hits": hits}


@both_pinned
def test_both_engines_build_the_same_graph_from_the_same_repository(repo, tmp_path):
    seen = {}
    for name in ENGINES:
        home = tmp_path / f"home-{name}"
        ltm("ingest", repo.path, "--home", home, "--embedder", "hash", "--graph-engine", name)
        [build] = list_builds(home / "graph")
        assert build.name.endswith(ENGINES[name].suffix)
        assert json.loads((home / "settings.json").read_text())["graph_engine"] == name
        seen[name] = answers(home)
    assert seen["kuzu"]["nodes"]["Function"] == 6 and all(seen["kuzu"]["hits"].values())
    assert seen["ladybug"] == seen["kuzu"]


@both_pinned
def test_switching_engine_rebuilds_from_the_lake_and_readers_keep_the_old_build(repo, tmp_path):
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash", engine_env="kuzu")
    before = answers(home)
    old = current_build(home / "graph")
    assert old.suffix == ".kuzu"
    # A reader (its own process, as a server would be) opens the kuzu build, then answers again after the switch.
    reader = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, json\nfrom pathlib import Path\n"
            "from ltm.graph.read import open_current, counts\n"
            f"with open_current(Path({str(home / 'graph')!r})) as c:\n"
            "    print(json.dumps(counts(c)), flush=True); sys.stdin.readline()\n"
            "    print(json.dumps(counts(c)), flush=True)\n")],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        first = reader.stdout.readline()
        ltm("ingest", repo.path, "--home", home, "--graph-engine", "ladybug")
        reader.stdin.write("\n")
        reader.stdin.flush()
        second = reader.stdout.readline()
    finally:
        reader.communicate(timeout=60)
    assert reader.returncode == 0 and first and second == first
    new = current_build(home / "graph")
    assert new.suffix == ".lbug" and old.exists()  # the old build stays on disk for readers that hold it
    assert json.loads((home / "settings.json").read_text())["graph_engine"] == "ladybug"
    assert answers(home) == before
    # A later ingest without the option keeps the recorded engine, whatever the environment says.
    ltm("ingest", repo.path, "--home", home, engine_env="kuzu")
    assert current_build(home / "graph").suffix == ".lbug"


def test_a_second_engine_in_one_process_is_refused_with_the_reason(tmp_path):
    lake, root = _lake(tmp_path), tmp_path / "graph"
    build_graph(root, lake)  # loads this run's engine
    with open_current(root) as conn:
        assert counts(conn)[0]["Function"] == 2
    other = next(e for e in ENGINES.values() if e.name != default_engine())
    with pytest.raises(GraphError, match="cannot load beside it.*new process"):
        build_graph(tmp_path / "other", lake, engine_name=other.name)
    assert current_build(tmp_path / "other") is None and list_builds(tmp_path / "other") == []


@both_pinned
def test_why_the_refusal_exists_the_two_native_libraries_crash_together(tmp_path):
    script = (f"import kuzu, ladybug\nkuzu.Database({str(tmp_path / 'a.kuzu')!r})\n"
              f"ladybug.Database({str(tmp_path / 'b.lbug')!r})\nprint('both loaded')")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert res.returncode != 0 and "both loaded" not in res.stdout  # if this ever passes, drop the refusal


def test_unknown_engine_names_the_choices(tmp_path, monkeypatch):
    with pytest.raises(GraphError, match="kuzu, ladybug"):
        engine("neo4j")
    monkeypatch.setenv("LTM_GRAPH_ENGINE", "duckdb")
    with pytest.raises(GraphError, match="LTM_GRAPH_ENGINE"):
        build_graph(tmp_path / "graph", _lake(tmp_path))


def test_a_build_file_of_the_other_engine_is_refused_before_it_is_read(tmp_path):
    fake = tmp_path / "x.kuzu"
    fake.write_bytes(b"LBUG1" + b"\0" * 4096)
    with pytest.raises(GraphError, match="not a kuzu database"):
        with open_database(fake, read_only=True):
            pass


def test_a_home_that_recorded_no_engine_keeps_the_engine_of_its_build(tmp_path, monkeypatch):
    from ltm.home import Home

    home = Home(tmp_path / "home")
    home.create()
    build_graph(home.graph, _lake(tmp_path))  # this run's engine, as a home from before engines were recorded
    built = default_engine()
    other = next(e for e in ENGINES if e != built)
    monkeypatch.setenv("LTM_GRAPH_ENGINE", other)
    assert home.graph_engine() == built
    home.update_settings(graph_engine=other)
    assert home.graph_engine() == other
