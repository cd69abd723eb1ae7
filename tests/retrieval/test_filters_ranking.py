from datetime import datetime, timezone

import pytest

from ltm.errors import QueryError
from ltm.graph.node import Node
from ltm.retrieval.filters import Filters
from ltm.retrieval.fusion import ranked, rrf
from ltm.retrieval.ranking import RankingConfig, blend


def test_filters_validate_and_quote():
    f = Filters.of({"repo": "svc", "category": "function", "path": "it's/dir", "since": "2024-01-02", "until": "2024-02-01T00:00:00Z"})
    where = f.lance_where()
    assert "repo = 'svc'" in where and "category = 'function'" in where
    assert "starts_with(file_path, 'it''s/dir')" in where  # the quote is doubled, never closes the literal
    assert f.since == datetime(2024, 1, 2, tzinfo=timezone.utc)
    assert Filters.of(None).lance_where() is None and not Filters.of(None).active


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"repo": "x' OR 1=1 --"}, "invalid repository key"),
        ({"category": "a b"}, "invalid category"),
        ({"path": "../etc"}, "relative to the repository root"),
        ({"since": "yesterday"}, "is not a date"),
        ({"since": "2024-02-01", "until": "2024-01-01"}, "is after"),
        ({"colour": "red"}, "unknown filter"),
    ],
)
def test_bad_filters_are_refused_with_the_value(bad, message):
    with pytest.raises(QueryError, match=message):
        Filters.of(bad)


def test_accepts_checks_every_field():
    f = Filters.of({"repo": "svc", "path": "app/", "since": "2023-01-01"})
    ok = {"repo": "svc", "file_path": "app/a.py", "created_at": "2023-06-01T00:00:00+00:00", "category": "function"}
    assert f.accepts(ok)
    assert not f.accepts({**ok, "repo": "other"})
    assert not f.accepts({**ok, "file_path": "lib/a.py"})
    assert not f.accepts({**ok, "created_at": None})  # undated entries are outside any time range
    assert not f.accepts({**ok, "created_at": "2022-12-31T23:59:59+00:00"})


def test_rrf_rewards_agreement_between_lists():
    scores = rrf([(["a", "b", "c"], 1.0), (["c", "a"], 1.0)])
    assert ranked(scores) == ["a", "c", "b"]
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)


def test_ranking_weights_come_from_settings_then_environment():
    cfg = RankingConfig.load({"SEMANTIC_WEIGHT": 0.6}, env={"LTM_GRAPH_WEIGHT": "0.4"})
    assert (cfg.semantic_weight, cfg.graph_weight) == (0.6, 0.4)
    assert RankingConfig.load(None, env={}).semantic_weight == 0.9
    with pytest.raises(QueryError, match="LTM_GRAPH_WEIGHT='lots' is not a number"):
        RankingConfig.load(None, env={"LTM_GRAPH_WEIGHT": "lots"})


def test_blend_lifts_central_and_defect_prone_entities_only_with_graph_weight():
    fused = {"plain": 1.0, "hub": 0.9, "buggy": 0.9}
    nodes = {"plain": Node("plain", "Function", pagerank=0.2), "hub": Node("hub", "Function", pagerank=20.0),
             "buggy": Node("buggy", "Function", pagerank=0.2, defects=3)}
    semantic = blend(fused, nodes, RankingConfig(semantic_weight=1.0, graph_weight=0.0))
    assert max(semantic, key=lambda k: semantic[k].score) == "plain"
    graphy = blend(fused, nodes, RankingConfig(semantic_weight=0.5, graph_weight=0.5, centrality_share=0.5))
    order = sorted(graphy, key=lambda k: -graphy[k].score)
    assert order[0] == "hub" and graphy["buggy"].score > graphy["plain"].score
    assert graphy["buggy"].defects == pytest.approx(0.75) and graphy["hub"].centrality == pytest.approx(20 / 21)


def test_of_two_memories_about_as_relevant_the_newer_leads():
    # neighbouring ranks of one fused list: the older version is one rank ahead on relevance alone
    fused = {"mem:old": 1 / 61, "mem:new": 1 / 62, "fn:x": 1 / 63}
    nodes = {"mem:old": Node("mem:old", "Memory"), "mem:new": Node("mem:new", "Memory"), "fn:x": Node("fn:x", "Function")}
    dates = {"mem:old": datetime(2024, 1, 1, tzinfo=timezone.utc), "mem:new": datetime(2025, 1, 1, tzinfo=timezone.utc)}
    by_relevance = blend(fused, nodes, RankingConfig())
    assert by_relevance["mem:old"].score > by_relevance["mem:new"].score
    dated = blend(fused, nodes, RankingConfig(), dates)
    assert dated["mem:new"].score > dated["mem:old"].score
    assert dated["fn:x"].score == by_relevance["fn:x"].score  # code keeps its own signals
    assert (dated["mem:new"].recency, dated["mem:old"].recency, dated["fn:x"].recency) == (1.0, 0.0, None)
    # a clearly more relevant older memory still leads: the date only breaks near ties
    far = blend({"mem:old": 1.0, "mem:new": 0.5}, nodes, RankingConfig(), dates)
    assert far["mem:old"].score > far["mem:new"].score
