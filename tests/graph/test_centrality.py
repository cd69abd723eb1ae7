"""PageRank as computed at graph build, against values worked out by hand."""

import numpy as np
import pytest

from ltm.graph.centrality import pagerank


def test_two_callers_of_one_function():
    # a -> c, b -> c; c calls nothing (its rank is spread evenly). Solving the PageRank equations
    # with d = 0.85 by hand: r_a = r_b = 0.05 + 0.85 * r_c / 3 and r_a + r_b + r_c = 1
    # give r_a = r_b = 0.3333 / 1.5667 = 0.212766 and r_c = 0.574468.
    rank = pagerank(3, np.array([0, 1]), np.array([2, 2]), np.array([1.0, 1.0]))
    assert rank == pytest.approx([0.212766, 0.212766, 0.574468], abs=1e-5)


def test_a_cycle_is_uniform_and_weights_shift_rank():
    cycle = pagerank(3, np.array([0, 1, 2]), np.array([1, 2, 0]), np.ones(3))
    assert cycle == pytest.approx([1 / 3] * 3)
    # a calls b (confidence 1.0) and c (0.5): b gets twice c's share of a's rank.
    rank = pagerank(3, np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.5]))
    assert rank[1] > rank[2] > rank[0] and rank.sum() == pytest.approx(1.0)
