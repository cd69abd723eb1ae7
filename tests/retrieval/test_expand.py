from ltm.retrieval.expand import OTHER_RELATION_WEIGHT, Edge, expansion_scores
from ltm.retrieval.intent import parse

REPORT = ("Cookie with an undefined max age crashes. Setting a cookie and leaving its max age undefined makes "
          "the server process die with a TypeError while it sends the response; I expected a session cookie.")


def test_a_search_reaches_what_its_matching_fixes_changed_at_full_weight():
    """A bug report names no function: the commits and bug reports its words find stand for the fix,
    and what they changed or affected is reached at the weight a question's own relation gets
    (a history question's MODIFIES), not at the weight of an incidental edge."""
    decay = 0.5
    seeds = {"commit:shop:abc": 1.0, "bug:shop:#7": 0.8, "fn:shop:a.py:helper": 0.9}
    edges = {
        "commit:shop:abc": [Edge(1, "MODIFIES", "out", "fn:shop:a.py:apply_options")],
        "bug:shop:#7": [Edge(1, "AFFECTS", "out", "fn:shop:a.py:set_cookie")],
        "fn:shop:a.py:helper": [Edge(1, "DEFINED_IN", "out", "file:shop:a.py")],
    }
    scores, why = expansion_scores(seeds, edges, parse(REPORT), decay)
    assert scores["fn:shop:a.py:apply_options"] == decay * 1.0
    assert scores["fn:shop:a.py:set_cookie"] == decay * 0.8
    assert scores["file:shop:a.py"] == decay * 0.9 * OTHER_RELATION_WEIGHT  # an incidental edge stays weak
    assert why["fn:shop:a.py:apply_options"] == "modified by abc"
    assert why["fn:shop:a.py:set_cookie"] == "affected by #7"
