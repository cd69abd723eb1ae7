"""The graph side's full text on either engine: LanceDB's index over the same texts, never the
graph engine's own (a build makes none: Kuzu's took a third of a build; LadybugDB's downloads).

Run with `LTM_GRAPH_ENGINE=ladybug` (make test does) for the other engine.
"""

from ltm.graph.engine import default_engine, loaded_engine
from ltm.graph.read import open_view
from tests.retrieval.conftest import ids_of

SVC = {"repo": "svc"}


def test_graph_only_finds_a_commit_by_words_of_its_message_on_either_engine(memory, shas):
    # No code name holds "reject" or "empty", and without expansion no neighbour stands in for the
    # text: only a full-text ranking of the commit messages finds the fix, first.
    hits = memory.query("reject empty", strategy="graph_only", top_k=5, expand_graph=False, filters=SVC)
    assert ids_of(hits)[:1] == [f"commit:svc:{shas['fix']}"], ids_of(hits)
    assert any(w.startswith("full-text rank") for w in hits[0]["why"]), hits[0]["why"]
    assert "reject empty tokens" in hits[0]["content"]  # from the node's own properties
    assert loaded_engine() == default_engine()


def test_graph_only_full_text_keeps_the_filters(memory, shas):
    hits = memory.query("reject empty", strategy="graph_only", top_k=10, expand_graph=False, filters={"repo": "other"})
    assert f"commit:other:{shas['fix']}" in ids_of(hits)
    assert all(":svc:" not in i for i in ids_of(hits)), ids_of(hits)


def test_graph_only_finds_a_memory_and_a_bug_by_their_text(memory):
    hits = memory.query("rotated weekly", strategy="graph_only", top_k=5, expand_graph=False, filters=SVC)
    assert ids_of(hits)[:1] == ["mem:notes:1"], ids_of(hits)
    hits = memory.query("crashes the validator", strategy="graph_only", top_k=5, expand_graph=False, filters=SVC)
    assert "bug:svc:#12" in ids_of(hits), ids_of(hits)


def test_a_build_has_no_full_text_index_on_either_engine(fixture_home):
    with open_view(fixture_home.graph) as g:
        indexes = g.run("CALL show_indexes() RETURN *")
    assert [r for r in indexes if str(r[2]).upper() == "FTS"] == []


def test_graph_only_finds_an_online_memory_by_its_words_before_the_next_build(memory):
    # The overlay holds it for the graph; its words are found through the vector row the add wrote.
    out = memory.add("Staging deploys freeze on Fridays after noon", {"id": "fz1"})
    hits = memory.query("deploys freeze", strategy="graph_only", top_k=5, expand_graph=False)
    assert ids_of(hits)[:1] == [out["graph_entity_id"]], ids_of(hits)
