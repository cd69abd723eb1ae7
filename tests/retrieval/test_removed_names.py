"""A name the history moved through many files: its live entity is what a question about it finds."""

import pytest

from ltm.home import Home
from ltm.query import HybridLTM
from tests.builder import RepoBuilder
from tests.retrieval.fixture import ingest

WIDGET = '''class Widget:
    """A drawable widget with a size."""

    def __init__(self, size):
        self.size = size

    def area(self):
        return self.size * self.size
'''
MOVES = 14  # copies of the class that leave the code


@pytest.fixture(scope="module")
def moved_home(tmp_path_factory) -> Home:
    root = tmp_path_factory.mktemp("moved")
    b = RepoBuilder(root / "ui")
    b.write("main.py", "def run():\n    return 1\n")
    b.commit("Start the app")
    # Copies of the class in folders whose paths sort before the live one (`a00/` ... `a13/` < `z/`),
    # later deleted, as zod's generated `deno/lib/` copies and its old `src/` sort before
    # `packages/zod/src/v3/`.
    for i in range(MOVES):
        b.write(f"a{i:02d}/widgets.py", WIDGET + f"\n\nVERSION = {i}\n")
    b.commit("Vendor the widget into every bundle")
    for i in range(MOVES):
        b.delete(f"a{i:02d}/widgets.py")
    b.write("z/widgets.py", WIDGET)
    b.write("z/app.py", "from z.widgets import Widget\n\n\ndef make():\n    return Widget(3).area()\n")
    b.commit("Keep one widget, in z/")
    home = Home(root / "home")
    ingest(home, b.path, extra=False)
    return home


LIVE = "cls:ui:z/widgets.py:Widget"


@pytest.mark.parametrize("strategy", ["parallel", "graph_first", "graph_only"])
def test_where_a_moved_class_is_defined_finds_the_live_class_first(moved_home, strategy):
    with HybridLTM(moved_home) as ltm:
        hits = ltm.query("where is Widget defined", strategy=strategy, top_k=5)
    assert hits[0]["graph_entity_id"] == LIVE, [h["graph_entity_id"] for h in hits]


def test_the_methods_of_a_moved_class_are_its_live_methods(moved_home):
    with HybridLTM(moved_home) as ltm:
        hits = ltm.query("which methods does the Widget class have", strategy="parallel", top_k=5)
    ids = [h["graph_entity_id"] for h in hits]
    assert {"fn:ui:z/widgets.py:Widget.area", "fn:ui:z/widgets.py:Widget.__init__"} <= set(ids[:3]), ids


def test_the_removed_copies_stay_reachable_after_the_live_one(moved_home):
    """The graph still answers with the copies that left the code, after the live class."""
    with HybridLTM(moved_home) as ltm:
        hits = ltm.query("Widget", strategy="graph_only", top_k=30)
    ids = [h["graph_entity_id"] for h in hits]
    removed = [i for i in ids if i.startswith("cls:ui:a")]
    assert len(removed) == MOVES, ids
    assert ids.index(LIVE) < ids.index(removed[0]), ids
