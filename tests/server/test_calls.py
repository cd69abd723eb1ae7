"""The breadth-first CALLS walk: depths, cycles, the confidence floor and the cut at MAX_ROWS."""

import pytest

from ltm.errors import QueryError
from server.calls import MAX_ROWS, walk


class Edges:
    """A stand-in for GraphReads holding caller edges {callee: [(caller, confidence)]}."""

    def __init__(self, edges):
        self.edges = edges

    def rows(self, cypher, params, keys):
        return [dict(zip(keys, [f, f, "m.py", c, c, "m.py", 1, conf, None]))
                for f in params["ids"] for c, conf in self.edges.get(f, []) if conf >= params["min"]]


def test_each_level_starts_from_the_functions_first_reached_before_it():
    reads = Edges({"a": [("b", 1.0), ("c", 0.5)], "b": [("d", 1.0), ("a", 1.0)], "d": [("b", 1.0)]})
    rows, cut = walk(reads, ["a"], "callers", 3, 0.0)
    assert [(r["other"], r["depth"]) for r in rows] == [("b", 1), ("c", 1), ("d", 2), ("a", 2), ("b", 3)]
    assert not cut
    rows, _ = walk(reads, ["a"], "callers", 1, 0.9)
    assert [r["other"] for r in rows] == ["b"]


def test_a_wide_walk_is_cut_and_says_so():
    reads = Edges({"a": [(f"c{i:04d}", 1.0) for i in range(MAX_ROWS + 1)]})
    rows, cut = walk(reads, ["a"], "callers", 2, 0.0)
    assert len(rows) == MAX_ROWS and cut


def test_out_of_range_arguments_say_the_range():
    with pytest.raises(QueryError, match="use 1 to 5"):
        walk(Edges({}), ["a"], "callers", 6, 0.0)
    with pytest.raises(QueryError, match="use 0 to 1"):
        walk(Edges({}), ["a"], "callers", 1, 1.5)
