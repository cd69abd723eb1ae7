import pytest

from ltm.errors import GraphError, NotIngestedError
from ltm.graph.build import build_graph, current_build, list_builds
from ltm.graph.engine import ENGINES, default_engine, open_database, query
from ltm.graph.read import counts, open_current
from ltm.lake import Lake


def _lake(tmp_path):
    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("File", [{"id": "file:r:a.py", "repo": "r", "path": "a.py", "language": "python"}])
        w.write("Function", [
            {"id": "fn:r:a.py:f", "repo": "r", "vector_id": "vec_f", "name": "f", "qualified_name": "f", "file_path": "a.py"},
            {"id": "fn:r:a.py:it's \"quoted\"", "repo": "r", "vector_id": "vec_q", "name": "q", "qualified_name": "q", "file_path": "a.py"},
        ])
        w.write("DEFINED_IN", [
            {"src": "fn:r:a.py:f", "dst": "file:r:a.py", "src_label": "Function", "dst_label": "File", "repo": "r"},
            {"src": "fn:r:a.py:f", "dst": "file:r:a.py", "src_label": "Function", "dst_label": "File", "repo": "r"},
            {"src": "fn:r:gone.py:g", "dst": "file:r:a.py", "src_label": "Function", "dst_label": "File", "repo": "r"},
        ])
    return lake


def test_build_copies_lake_and_switches_current(tmp_path):
    lake, root = _lake(tmp_path), tmp_path / "graph"
    stats = build_graph(root, lake)
    assert stats.nodes["Function"] == 2 and stats.rels["DEFINED_IN"] == 1
    assert stats.duplicate_edges == 1
    assert stats.dangling_edges == {"DEFINED_IN(Function->File)": 1}
    with open_current(root) as conn:
        nodes, rels = counts(conn)
        assert query(conn, "MATCH (f:Function)-[:DEFINED_IN]->(x:File) RETURN f.id, x.path") == [["fn:r:a.py:f", "a.py"]]
        assert query(conn, "MATCH (f:Function) WHERE f.id = $id RETURN f.name", {"id": "fn:r:a.py:it's \"quoted\""}) == [["q"]]
    assert nodes["File"] == 1 and rels["DEFINED_IN"] == 1


def test_rebuild_never_duplicates_and_prunes_old_builds(tmp_path):
    lake, root = _lake(tmp_path), tmp_path / "graph"
    for _ in range(4):
        build_graph(root, lake, retention=2, reuse=False)
    with open_current(root) as conn:
        assert counts(conn)[1]["DEFINED_IN"] == 1
    assert len(list_builds(root)) == 2


def test_failed_build_leaves_current_serving(tmp_path):
    lake, root = _lake(tmp_path), tmp_path / "graph"
    build_graph(root, lake)
    before = current_build(root)
    with lake.write("r") as w:  # a duplicate primary key would fail the whole COPY
        w.write("File", [{"id": "file:r:a.py", "repo": "r", "path": "a.py"}] * 2)
    with pytest.raises(GraphError, match="duplicate File ids"):
        build_graph(root, lake)
    assert current_build(root) == before
    assert len(list_builds(root)) == 1
    with open_current(root) as conn:
        assert counts(conn)[0]["Function"] == 2


def test_no_graph_yet_is_a_clear_error(tmp_path):
    with pytest.raises(NotIngestedError, match="ltm ingest"):
        with open_current(tmp_path / "graph"):
            pass


def test_second_writer_on_one_path_is_refused(tmp_path):
    path = tmp_path / ("x" + ENGINES[default_engine()].suffix)
    with open_database(path, read_only=False):
        with pytest.raises(GraphError, match="already open"):
            with open_database(path, read_only=False):
                pass


def test_build_ids_sort_in_creation_order_within_one_second():
    from ltm.graph.build import new_build_id

    made = [new_build_id() for _ in range(50)]
    assert sorted(made) == made and len(set(made)) == 50


def test_unchanged_lake_keeps_the_current_build_and_any_change_builds_anew(tmp_path):
    lake, root = _lake(tmp_path), tmp_path / "graph"
    first = build_graph(root, lake)
    again = build_graph(root, lake)
    assert again.reused and again.build_id == first.build_id
    assert again.nodes == first.nodes and again.rels == first.rels
    assert len([p for p in (root / "builds").iterdir() if p.suffix in (".kuzu", ".lbug")]) == 1
    with lake.write("r") as w:  # one more file in the lake: a new build that holds it
        w.write("File", [{"id": "file:r:a.py", "repo": "r", "path": "a.py"}, {"id": "file:r:b.py", "repo": "r", "path": "b.py"}])
    changed = build_graph(root, lake)
    assert not changed.reused and changed.build_id != first.build_id and changed.nodes["File"] == 2


def test_a_damaged_current_build_is_built_again_from_an_unchanged_lake(tmp_path):
    lake, root = _lake(tmp_path), tmp_path / "graph"
    first = build_graph(root, lake)
    build = current_build(root)
    build.write_bytes(b"\0" * build.stat().st_size)
    healed = build_graph(root, lake)
    assert not healed.reused and healed.build_id != first.build_id
    with open_current(root) as conn:
        assert counts(conn)[0]["Function"] == 2
