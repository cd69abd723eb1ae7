"""`ltm calls` and `ltm dependents` after a real ingest of a small Python project."""

import json

from tests.builder import RepoBuilder
from tests.extract.code.test_lang_python_js import PY
from tests.test_cli import run


def test_calls_and_dependents_answer_from_the_graph(tmp_path):
    b = RepoBuilder(tmp_path / "proj")
    for path, text in PY.items():
        b.write(path, text)
    b.commit("shapes")
    home = tmp_path / "home"
    run("ingest", b.path, "--home", home, "--embedder", "hash")
    rows = json.loads(run("calls", "helper", "--json", "--home", home).output)
    assert [(r["caller"], r["caller_file"], r["confidence"]) for r in rows] == [
        ("Circle.area", "pkg/shapes.py", 0.9), ("Circle.dump", "pkg/shapes.py", 0.9),
    ]
    out = run("calls", "Circle.dump", "--callees", "--home", home).output
    assert "Circle.dump -> Circle.area" in out and "Circle.dump -> helper" in out
    deps = json.loads(run("dependents", "pkg.base", "--json", "--home", home).output)
    assert [d["dependent"] for d in deps] == ["pkg.shapes"]
    assert "pkg.base" in run("dependents", "os", "--home", home).output  # an external package
    assert "no resolved callers of make" in run("calls", "make", "--home", home).output
