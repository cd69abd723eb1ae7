"""Amended builds (`ltm.graph.amend`): after a change to some partitions, the new build is a copy of
the current one with those partitions replaced, and it equals a full build of the same lake.

Runs with the engine of the process (`make test` runs this folder again with ladybug)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ltm.graph.build import build_graph, current_build, list_builds
from ltm.graph.engine import open_database, query
from ltm.graph.read import counts, open_view
from ltm.lake import Lake

ROOT = Path(__file__).resolve().parents[2]


def fn(repo, name, path="a.py"):
    return {"id": f"fn:{repo}:{path}:{name}", "repo": repo, "vector_id": f"vec_{repo}_{name}", "name": name,
            "qualified_name": name, "file_path": path}


def rel(src, dst, a, b, repo, **props):
    return {"src": src, "dst": dst, "src_label": a, "dst_label": b, "repo": repo, **props}


def write_repo(lake, repo, names, calls=(), extra_defined=()):
    """A repository partition: one file, its functions, DEFINED_IN (one duplicate row, one dangling), CALLS."""
    with lake.write(repo) as w:
        w.write("File", [{"id": f"file:{repo}:a.py", "repo": repo, "path": "a.py", "language": "python"}])
        w.write("Function", [fn(repo, n) for n in names])
        defined = [rel(f"fn:{repo}:a.py:{n}", f"file:{repo}:a.py", "Function", "File", repo) for n in names]
        w.write("DEFINED_IN", defined + defined[:1] + [
            rel(f"fn:{repo}:gone.py:{n}", f"file:{repo}:a.py", "Function", "File", repo) for n in extra_defined])
        w.write("CALLS", [rel(f"fn:{repo}:a.py:{a}", f"fn:{repo}:a.py:{b}", "Function", "Function", repo,
                              confidence=0.9) for a, b in calls])


def write_memories(lake, links):
    """The memories partition: one memory per link, linked to a function of any repository."""
    with lake.write("memories") as w:
        w.write("Memory", [{"id": f"mem:jsonl:{i}", "repo": "memories", "vector_id": f"vec_m{i}", "content": f"note {i}",
                            "source": "jsonl", "memory_type": "semantic", "category": "memory"} for i in range(len(links))])
        w.write("RELATES_TO_FUNCTION", [rel(f"mem:jsonl:{i}", target, "Memory", "Function", "memories",
                                            relevance_score=0.8, context="test") for i, target in enumerate(links)])


def dump(build: Path) -> dict:
    """Every node (all properties) and every edge (its ends' ids and properties) of a build, sorted."""
    out = {}
    with open_database(build, read_only=True) as conn:
        labels = [r[0] for r in query(conn, "CALL show_tables() RETURN name, type") if r[1] == "NODE"]
        rels = [r[0] for r in query(conn, "CALL show_tables() RETURN name, type") if r[1] == "REL"]
        for label in labels:
            rows = [{k: v for k, v in n.items() if not k.startswith("_")} for [n] in query(conn, f"MATCH (n:{label}) RETURN n")]
            out[label] = sorted(rows, key=lambda r: r["id"])
        for name in rels:
            rows = [(a, b, sorted((k, repr(v)) for k, v in r.items() if not k.startswith("_")))
                    for a, b, r in query(conn, f"MATCH (a)-[r:{name}]->(b) RETURN a.id, b.id, r")]
            out[name] = sorted(rows)
    return out


def full_build_of(lake, tmp_path, name="full"):
    stats = build_graph(tmp_path / name, lake, amend=False)
    return stats, current_build(tmp_path / name)


def same_stats(a, b):
    assert (a.nodes, a.rels, a.dangling_edges, a.duplicate_edges) == (b.nodes, b.rels, b.dangling_edges, b.duplicate_edges)


def test_an_amended_build_equals_a_full_build_of_the_same_lake(tmp_path):
    lake, root = Lake(tmp_path / "lake"), tmp_path / "graph"
    write_repo(lake, "r", ["alpha", "beta", "gamma"], calls=[("alpha", "beta")], extra_defined=["lost"])
    write_repo(lake, "s", ["delta", "epsilon"], calls=[("delta", "epsilon")])
    write_memories(lake, ["fn:r:a.py:alpha", "fn:s:a.py:delta", "fn:r:a.py:nowhere"])
    first = build_graph(root, lake)
    assert first.mode == "full" and first.amend_refused is None

    # one repository changes: a function goes, one comes, a call moves; s and the memories stay as they were
    write_repo(lake, "r", ["alpha", "gamma", "zeta"], calls=[("alpha", "zeta"), ("zeta", "gamma")], extra_defined=["lost"])
    amended = build_graph(root, lake)
    assert amended.mode == "amend" and amended.changed_partitions == ["r"]
    full, full_path = full_build_of(lake, tmp_path)
    assert dump(current_build(root)) == dump(full_path)
    same_stats(amended, full)
    assert amended.dangling_edges == {"DEFINED_IN(Function->File)": 1, "RELATES_TO_FUNCTION(Memory->Function)": 1}
    assert amended.duplicate_edges == 2

    # the memories change (a link to the new function), and a repository leaves the lake
    write_memories(lake, ["fn:r:a.py:zeta", "fn:s:a.py:delta"])
    lake.remove_repo("s")
    again = build_graph(root, lake)
    assert again.mode == "amend" and again.changed_partitions == ["memories", "s"]
    full, full_path = full_build_of(lake, tmp_path, "full2")
    assert dump(current_build(root)) == dump(full_path)
    same_stats(again, full)
    assert again.rels["RELATES_TO_FUNCTION"] == 1 and {f["repo"] for f in dump(full_path)["Function"]} == {"r"}


def test_readers_of_an_amended_build_find_nodes_past_the_deleted_ones(tmp_path):
    lake, root = Lake(tmp_path / "lake"), tmp_path / "graph"
    write_repo(lake, "r", ["alpha", "beta"], calls=[("alpha", "beta")])
    write_repo(lake, "s", ["delta"])
    build_graph(root, lake)
    write_repo(lake, "r", ["alpha", "beta", "validate_token"], calls=[("validate_token", "beta")])
    assert build_graph(root, lake).mode == "amend"
    with open_view(root) as view:  # the saved reader index, with holes where r's old nodes were
        assert sorted(view.neighbours(["fn:r:a.py:beta"])["fn:r:a.py:beta"]) == [
            ("CALLS", "in", "fn:r:a.py:validate_token"), ("DEFINED_IN", "out", "file:r:a.py")]
        assert view.name_matches(["token", "validated"], ["Function"], 5) == ["fn:r:a.py:validate_token"]
        assert view.index("Function").offset.keys() == {"fn:r:a.py:alpha", "fn:r:a.py:beta", "fn:r:a.py:validate_token",
                                                        "fn:s:a.py:delta"}


def test_what_an_amend_cannot_prove_equal_is_built_in_full(tmp_path):
    lake, root = Lake(tmp_path / "lake"), tmp_path / "graph"
    write_repo(lake, "r", ["alpha"])
    write_memories(lake, ["fn:s:a.py:later"])  # a dangling link, to a function s does not have yet
    write_repo(lake, "s", ["delta"])
    build_graph(root, lake)
    write_repo(lake, "s", ["delta", "later"])  # now it has: the unchanged memories' edge is no longer dangling
    stats = build_graph(root, lake)
    assert stats.mode == "full" and "dangling edge" in stats.amend_refused
    assert stats.rels["RELATES_TO_FUNCTION"] == 1 and stats.dangling_edges == {}

    with lake.write("s") as w:  # a node row whose repo is not its partition
        w.write("Function", [fn("s", "delta"), fn("r", "elsewhere")])
    stats = build_graph(root, lake)
    assert stats.mode == "full" and "another repository" in stats.amend_refused
    write_repo(lake, "s", ["delta"])  # the ledger of that full build says its rows were not owned
    stats = build_graph(root, lake)
    assert stats.mode == "full" and "partition" in stats.amend_refused
    write_repo(lake, "r", ["alpha", "omega"])
    assert build_graph(root, lake).mode == "amend"


def test_deleted_node_slots_are_compacted_by_a_full_build(tmp_path):
    lake, root = Lake(tmp_path / "lake"), tmp_path / "graph"
    write_repo(lake, "r", ["alpha", "beta"])
    write_repo(lake, "s", ["delta"])
    build_graph(root, lake)
    modes = []
    for k in range(4):
        write_repo(lake, "r", [f"a{k}", f"b{k}"])  # two functions leave, two come: two holes each time
        modes.append(build_graph(root, lake).mode)
    assert modes == ["amend", "amend", "amend", "full"]  # 6 deleted slots > 5 live nodes: compacted
    full, full_path = full_build_of(lake, tmp_path)
    assert dump(current_build(root)) == dump(full_path)


_AMEND_IN_CHILD = """
import sys
from pathlib import Path
from ltm.graph.build import build_graph
from ltm.lake import Lake
build_graph(Path(sys.argv[1]), Lake(Path(sys.argv[2])))
"""


def test_a_crash_in_the_middle_of_an_amend_leaves_the_old_build_serving(tmp_path):
    lake, root = Lake(tmp_path / "lake"), tmp_path / "graph"
    names = [f"f{i}" for i in range(3000)]  # enough rows that the amend is still running when killed
    write_repo(lake, "r", names, calls=list(zip(names, names[1:])))
    write_repo(lake, "s", ["delta"])
    build_graph(root, lake)
    old = current_build(root)
    with open_database(old, read_only=True) as conn:
        before = counts(conn)
    write_repo(lake, "r", names[:-1] + ["new"], calls=list(zip(names, names[1:-1])))
    child = subprocess.Popen([sys.executable, "-c", _AMEND_IN_CHILD, str(root), str(lake.root)],
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while not any(root.glob("builds/*.staging")) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert current_build(root) == old  # never switched; readers keep the old build
    with open_database(old, read_only=True) as conn:
        assert counts(conn) == before
    stats = build_graph(root, lake)  # the next build prunes the killed one and amends again
    assert stats.mode == "amend" and not any(root.glob("builds/*.staging"))
    assert len(list_builds(root)) == 2
    full, full_path = full_build_of(lake, tmp_path)
    assert dump(current_build(root)) == dump(full_path)
