"""The read-only view of a build (`ltm/graph/view.py`), which retrieval and the CLI read through: neighbours around a hub, the label index,
names read off ids, name words. A real Kuzu build of a small hand-written lake."""

import pytest

from ltm.graph.build import build_graph
from ltm.graph.entity_ids import name_from_id, path_from_id, plain_id, short_name
from ltm.graph.name_words import name_words, stem
from ltm.graph.read import open_view
from ltm.lake import Lake

HUB = "fn:r:core.py:log"
CALLERS = 120


def _fn(name: str, path: str = "core.py", **extra) -> dict:
    return {"id": f"fn:r:{path}:{name}", "repo": "r", "vector_id": f"vec_{name}", "name": name.rsplit(".", 1)[-1],
            "qualified_name": name, "file_path": path, **extra}


def _calls(src: str, dst: str) -> dict:
    return {"src": src, "dst": dst, "src_label": "Function", "dst_label": "Function", "repo": "r", "confidence": 1.0}


@pytest.fixture(scope="module")
def view(tmp_path_factory):
    root = tmp_path_factory.mktemp("view")
    lake = Lake(root / "lake")
    callers = [_fn(f"caller_{i}", "app.py") for i in range(CALLERS)]
    with lake.write("r") as w:
        w.write("File", [{"id": f"file:r:{p}", "repo": "r", "path": p, "language": "python"} for p in ("core.py", "app.py")])
        w.write("Function", [_fn("log"), _fn("Validator.validate_token"), _fn("leaf"), *callers])
        # The hub has 120 callers; `leaf` is called by two of them and calls the hub.
        w.write("CALLS", [_calls(c["id"], HUB) for c in callers]
                + [_calls("fn:r:app.py:caller_0", "fn:r:core.py:leaf"), _calls("fn:r:app.py:caller_1", "fn:r:core.py:leaf"),
                   _calls("fn:r:core.py:leaf", HUB)])
    build_graph(root / "graph", lake)
    with open_view(root / "graph") as view:
        yield view


def test_a_hub_does_not_crowd_out_the_other_ids(view):
    near = view.neighbours([HUB, "fn:r:core.py:leaf"], limit_per_node=10)
    assert len(near[HUB]) == 10 and all(rel == "CALLS" and d == "in" for rel, d, _ in near[HUB])
    assert sorted(near["fn:r:core.py:leaf"]) == [
        ("CALLS", "in", "fn:r:app.py:caller_0"), ("CALLS", "in", "fn:r:app.py:caller_1"), ("CALLS", "out", HUB)]


def test_neighbour_directions_and_unknown_ids(view):
    near = view.neighbours(["fn:r:app.py:caller_7", "fn:r:nowhere.py:ghost", "not-an-id"], limit_per_node=50)
    assert near["fn:r:app.py:caller_7"] == [("CALLS", "out", HUB)]
    assert "fn:r:nowhere.py:ghost" not in near and "not-an-id" not in near


def test_signals_and_details_come_from_the_build(view):
    sig = view.signals([HUB, "fn:r:core.py:leaf", "fn:r:nowhere.py:ghost"])
    assert set(sig) == {HUB, "fn:r:core.py:leaf"}
    assert sig[HUB].pagerank > sig["fn:r:core.py:leaf"].pagerank  # 121 callers against 2
    assert sig[HUB].vector_id and sig[HUB].vector_id.startswith("vec_")
    details = view.details([HUB, "fn:r:app.py:caller_3"])
    assert details[HUB]["qualified_name"] == "log" and details["fn:r:app.py:caller_3"]["file_path"] == "app.py"
    assert view.nodes(["fn:r:core.py:Validator.validate_token"])["fn:r:core.py:Validator.validate_token"].name == "Validator.validate_token"


def test_names_and_paths_read_off_ids():
    assert name_from_id("fn:svc:app/auth.py:Validator.validate_token") == "Validator.validate_token"
    assert path_from_id("fn:svc:app/auth.py:Validator.validate_token") == "app/auth.py"
    assert name_from_id("mod:svc:app.auth") == "app.auth"
    assert name_from_id("commit:svc:abc123") == "abc123" and name_from_id("bug:svc:#12") == "#12"
    assert name_from_id("mem:notes:1") is None and path_from_id("commit:svc:abc") is None


def test_an_overload_is_named_with_its_parameters_whatever_colons_they_hold():
    """Swift's labels and C++'s scopes put colons in an overload's id; its path is still its path."""
    swift = "fn:svc:Source/Base.swift:Monitoring.request(_:didFail:)"
    assert name_from_id(swift) == "Monitoring.request(_:didFail:)" and path_from_id(swift) == "Source/Base.swift"
    cpp = "fn:svc:src/(gen)/a.cpp:A.operator()(const std::string&,int)"
    assert name_from_id(cpp) == "A.operator()(const std::string&,int)" and path_from_id(cpp) == "src/(gen)/a.cpp"
    assert plain_id(cpp) == plain_id("fn:svc:src/(gen)/a.cpp:A.operator()") == "fn:svc:src/(gen)/a.cpp:A.operator()"
    assert plain_id("fn:svc:P.java:Policy.allows(Class<?>)@2") == "fn:svc:P.java:Policy.allows"
    assert short_name("fn:svc:P.java:Policy.allows(Class<?>)@2") == "Policy.allows(Class<?>)"


def test_name_words_match_question_words(view):
    assert stem("validated") == stem("validate") == stem("validation") == "validat"
    assert stem("retries") == stem("retry") and stem("tokens") == "token"
    assert name_words("Validator.validate_token") == {"validator", "validat", "token"}
    assert name_words("parseHTTPHeader") == {"pars", "http", "head"}
    assert view.name_matches(["tokens", "validated"], ["Function"], 3)[0] == "fn:r:core.py:Validator.validate_token"


def test_a_build_saves_what_readers_load_and_a_damaged_file_is_ignored(tmp_path):
    """A cold reader loads each label's index and name words saved beside the build (no label
    scan); the answers equal those of a reader that computes them, and a file that is damaged or
    of another format is computed anew instead of read."""
    from ltm.graph.build import current_build
    from ltm.graph.engine import open_database
    from ltm.graph.view import GraphView

    lake = Lake(tmp_path / "lake")
    with lake.write("r") as w:
        w.write("Function", [_fn("log"), _fn("Validator.validate_token"), _fn("leaf", "app.py"), _fn("parseHTTPHeader")])
        w.write("CALLS", [_calls("fn:r:app.py:leaf", HUB)])
    build_graph(tmp_path / "graph", lake)
    build = current_build(tmp_path / "graph")
    saved = sorted(p.name.removeprefix(build.name) for p in build.parent.glob(build.name + ".*-*.arrow"))
    assert ".reader-Function.arrow" in saved and ".words-Function.arrow" in saved
    assert ".words-Commit.arrow" not in saved  # commits are found by full text, not name words

    def answers(view: GraphView) -> tuple:
        idx = view.index("Function")
        return (idx.ids, idx.pagerank.round(9).tolist(), idx.has_vector.tolist(),
                view.name_matches(["tokens", "validated"], ["Function"], 3), view.name_matches(["http", "header"], ["Function"], 3))

    with open_database(build, read_only=True) as conn:
        loaded, computed = GraphView(conn, build), GraphView(conn)
        assert answers(loaded) == answers(computed)
        assert answers(loaded)[3][0] == "fn:r:core.py:Validator.validate_token"
        assert answers(loaded)[4][0] == "fn:r:core.py:parseHTTPHeader"
    words = build.with_name(build.name + ".words-Function.arrow")
    words.write_bytes(b"not arrow")
    build.with_name(build.name + ".reader-Function.arrow").write_bytes(b"")
    with open_database(build, read_only=True) as conn:
        assert answers(GraphView(conn, build))[3][0] == "fn:r:core.py:Validator.validate_token"
