"""Online memories through the overlay: found and linked at once by every strategy without a new
graph build, folded into the next build exactly once, whole or absent after a kill mid-add, and
none lost when two processes add at once."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ltm.graph.build import current_build
from ltm.graph.read import open_view
from ltm.lake import Lake
from ltm.memory.journal import journal_path, recover_home
from ltm.memory.store import import_memories
from ltm.query import HybridLTM
from ltm.reconcile import reconcile
from ltm.vectors import VectorStore
from tests.memory.test_pipeline import ingest, ingested  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Validator.validate_token must reject tokens signed by a rotated key"
STRATEGIES = ("vector_first", "graph_first", "parallel", "vector_only", "graph_only")


def _ids(hits):
    return [h["graph_entity_id"] for h in hits]


def test_every_strategy_finds_an_online_memory_with_its_links_before_any_build(ingested):  # noqa: F811
    home, key, instance, _ = ingested
    build = current_build(home.graph)
    fn = f"fn:{key}:app/auth.py:Validator.validate_token"
    with HybridLTM(home.root) as ltm:
        ltm.query("warm the reader up")  # a reader opened before the add follows it
        out = ltm.add(TEXT, {"id": "k1", "file_path": "app/auth.py", "category": "guideline"})
        assert out["links"] == 2 and out["in_graph"]  # the file and the method (not its class)
        for strategy in STRATEGIES:
            hits = ltm.query(TEXT, strategy=strategy, top_k=5)
            assert "mem:online:k1" in _ids(hits), strategy
            hit = next(h for h in hits if h["graph_entity_id"] == "mem:online:k1")
            assert hit["content"] == TEXT and hit["category"] == "guideline", strategy
            if strategy == "vector_only":  # no graph, no neighbours
                continue
            # expansion from the memory to its code
            assert {(n["relation"], n["id"]) for n in hit["neighbours"]} >= {
                ("RELATES_TO_FUNCTION", fn), ("RELATES_TO_FILE", f"file:{key}:app/auth.py")}, strategy
        # the memories of a file, by the graph alone
        assert "mem:online:k1" in _ids(ltm.query("memories about app/auth.py", strategy="graph_only"))
        # expansion from the function to its memory
        fn_hit = next(h for h in ltm.query("Validator.validate_token", strategy="graph_first", top_k=10)
                      if h["graph_entity_id"] == fn)
        assert ("RELATES_TO_FUNCTION", "in", "mem:online:k1") in {(n["relation"], n["direction"], n["id"])
                                                                  for n in fn_hit["neighbours"]}
    assert current_build(home.graph) == build  # the graph build was neither copied nor switched
    assert reconcile(home.graph, home.vectors).ok


def test_the_next_build_folds_the_overlay_in_once_and_the_overlay_empties(ingested):  # noqa: F811
    home, key, instance, _ = ingested
    with HybridLTM(home.root) as ltm:
        ltm.add_many([(TEXT, {"id": "k2"}), ("parse_header must keep folded lines", {"id": "k3"})])
        with open_view(home.graph) as view:
            assert set(view.overlay.memories) == {"mem:online:k2", "mem:online:k3"}
        ingest(home.root, key, instance)
        with open_view(home.graph) as view:
            assert len(view.overlay) == 0
            built = view.run("MATCH (m:Memory) WHERE m.id STARTS WITH 'mem:online:' RETURN m.id ORDER BY m.id")
            assert built == [["mem:online:k2"], ["mem:online:k3"]]
            links = view.neighbours(["mem:online:k3"])["mem:online:k3"]
            assert links == [("RELATES_TO_FUNCTION", "out", f"fn:{key}:app/auth.py:parse_header")]  # once
        for strategy in STRATEGIES:
            assert _ids(ltm.query(TEXT, strategy=strategy, top_k=10)).count("mem:online:k2") == 1, strategy
        ltm.add("parse_header is hot", {"id": "k4"})  # after the build: the overlay again, and only it
        with open_view(home.graph) as view:
            assert set(view.overlay.memories) == {"mem:online:k4"}
            # a cold reader reads only the files added after the build (the build's own are skipped)
            memory_files = [k for k, rows in view.overlay._memories.by_file.items() if rows]
            assert len(memory_files) == 1 and [r["id"] for r in view.overlay._memories.by_file[memory_files[0]]] == ["mem:online:k4"]
    assert reconcile(home.graph, home.vectors).ok


KILLER = textwrap.dedent("""
    import os, signal, sys, threading, time
    import ltm.lake, ltm.memory.online as online, ltm.memory.journal as journal
    from ltm.query import HybridLTM
    point = sys.argv[2]

    def die(*a, **k):
        os.kill(os.getpid(), signal.SIGKILL)

    if point == "before_lake":          # the journal is written, nothing else
        online._commit = die
    elif point == "inside_lake_commit": # the embedding's part is in the live partition, the links' and the memory's not
        real_replace = os.replace
        def replace(src, dst, *a, **k):
            real_replace(src, dst, *a, **k)
            if "part-" in str(dst):
                die()
        ltm.lake.os.replace = replace
    elif point == "before_vectors":     # the lake holds it, LanceDB does not (the vector row waits for the commit)
        def upsert_after_the_lake(*a, **k):
            lake = ltm.lake.Lake(sys.argv[1] + "/lake")
            while "mem:online:killed" not in lake.read("Memory", "memories", ["id"]).column("id").to_pylist():
                time.sleep(0.01)
            die()
        online.VectorStore.upsert_rows = upsert_after_the_lake
    elif point == "vectors_before_lake": # LanceDB holds it, the lake does not (the commit waits for the vector row)
        appended = threading.Event()
        real_write = online._write_vectors
        def write_vectors(*a, **k):
            real_write(*a, **k)
            appended.set()
        def commit_after_the_vectors(*a, **k):
            appended.wait(60)
            die()
        online._write_vectors, online._commit = write_vectors, commit_after_the_vectors
    elif point == "before_journal_end": # every store holds it, the journal is still there
        online.end = die
    HybridLTM(sys.argv[1]).add("parse_header drops folded lines", {"id": "killed"})
""")


@pytest.mark.parametrize("point,stored", [("before_lake", False), ("inside_lake_commit", False),
                                          ("vectors_before_lake", False), ("before_vectors", True),
                                          ("before_journal_end", True)])
def test_a_kill_mid_add_leaves_the_memory_whole_or_absent(ingested, point, stored):  # noqa: F811
    home, key, _, _ = ingested
    build = current_build(home.graph)
    proc = subprocess.run([sys.executable, "-c", KILLER, str(home.root), point], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert journal_path(home).exists()
    recover_home(home)  # what `ltm reconcile` (and the next add) does first
    assert not journal_path(home).exists()
    assert reconcile(home.graph, home.vectors).ok
    mem, vid = "mem:online:killed", None
    lake = Lake(home.lake)
    in_lake = mem in lake.read("Memory", "memories", ["id"]).column("id").to_pylist()
    links = [r for r in lake.read("RELATES_TO_FUNCTION", "memories").to_pylist() if r["src"] == mem]
    rows = {v: e for v, e in VectorStore(home.vectors).links().items() if e == mem}
    with open_view(home.graph) as view:
        in_overlay = mem in view.overlay
    assert (in_lake, bool(rows), in_overlay, bool(links)) == (stored,) * 4
    assert current_build(home.graph) == build
    if stored:
        assert HybridLTM(home.root).query("parse_header drops folded lines", top_k=1)[0]["graph_entity_id"] == mem
    else:
        HybridLTM(home.root).add("parse_header drops folded lines", {"id": "killed"})  # the add can be made again
        assert reconcile(home.graph, home.vectors).ok


ADDER = textwrap.dedent("""
    import sys
    from ltm.query import HybridLTM
    ltm = HybridLTM(sys.argv[1])
    for i in range(6):
        ltm.add(f"parse_header note {i} from {sys.argv[2]}", {"id": f"{sys.argv[2]}-{i}"})
""")


def test_two_processes_adding_at_once_lose_nothing(ingested):  # noqa: F811
    home, _, _, _ = ingested
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, str(home.root), name], cwd=ROOT, env=env,
                              stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    want = {f"mem:online:{n}-{i}" for n in "ab" for i in range(6)}
    assert want <= set(Lake(home.lake).read("Memory", "memories", ["id"]).column("id").to_pylist())
    assert want <= set(VectorStore(home.vectors).links().values())
    with open_view(home.graph) as view:
        assert set(view.overlay.memories) == want
        assert all(view.overlay.links_from[m] for m in want)  # each linked to parse_header
    assert reconcile(home.graph, home.vectors).ok


def test_imported_memories_wait_for_the_ingest_that_embeds_them(ingested, tmp_path):  # noqa: F811
    home, key, instance, _ = ingested
    notes = tmp_path / "later.jsonl"
    notes.write_text('{"id": "i1", "content": "parse_header is slow on long lines"}\n')
    import_memories(home, notes, "jsonl")  # no vector row until the next ingest embeds it
    with open_view(home.graph) as view:
        assert "mem:jsonl:i1" not in view.overlay
    assert reconcile(home.graph, home.vectors).ok
    ingest(home.root, key, instance)
    with HybridLTM(home.root) as ltm:
        assert ltm.query("parse_header is slow on long lines", top_k=1)[0]["graph_entity_id"] == "mem:jsonl:i1"
