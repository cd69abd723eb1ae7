"""The graph side's full text on either engine: Kuzu's own index, else (LadybugDB offline) LanceDB's.

Run with `LTM_GRAPH_ENGINE=ladybug` (make test does) for the fallback half.
"""

from ltm.graph.engine import ENGINES, default_engine, loaded_engine
from tests.retrieval.conftest import ids_of

SVC = {"repo": "svc"}


def test_graph_only_finds_a_commit_by_words_of_its_message_on_either_engine(memory, shas):
    hits = memory.query("reject empty tokens", strategy="graph_only", top_k=5, filters=SVC)
    assert any(shas["fix"] in i for i in ids_of(hits)), ids_of(hits)
    assert loaded_engine() == default_engine()


def test_the_build_has_full_text_exactly_when_its_engine_does_offline(fixture_home):
    from ltm.graph.read import open_view

    with open_view(fixture_home.graph) as g:
        assert g.has_full_text is ENGINES[default_engine()].full_text
