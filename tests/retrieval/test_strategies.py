"""The five strategies on a fixture whose structure and history are known (tests/retrieval/fixture.py)."""

import threading

import pytest

from ltm.errors import QueryError
from ltm.graph.build import build_graph, builds_dir, current_build
from ltm.graph.engine import ENGINES, default_engine, open_database, query, schema_ddl
from ltm.graph.read import counts, open_current
from ltm.home import Home
from ltm.lake import Lake
from ltm.query import HybridLTM
from ltm.retrieval.strategies import STRATEGIES
from tests.retrieval.conftest import ids_of

GRAPH_AWARE = ["graph_first", "parallel", "graph_only"]
SVC = {"repo": "svc"}
HANDLE_REQUEST = "fn:svc:app/api.py:handle_request"
VALIDATE = "fn:svc:app/auth.py:Validator.validate_token"


def commit(shas, name, repo="svc"):
    return f"commit:{repo}:{shas[name]}"


@pytest.mark.parametrize("strategy", GRAPH_AWARE)
def test_what_calls_x_answers_with_the_caller(memory, strategy):
    hits = memory.query("what calls parse_header", strategy=strategy, top_k=5, filters=SVC)
    assert hits[0]["graph_entity_id"] == HANDLE_REQUEST
    assert "graph: calls parse_header" in hits[0]["why"]
    assert (hits[0]["file_path"], hits[0]["line_start"], hits[0]["line_end"]) == ("app/api.py", 6, 9)


@pytest.mark.parametrize("strategy", GRAPH_AWARE)
def test_history_questions(memory, shas, strategy):
    fix = commit(shas, "fix")
    bug = memory.query("how was bug #12 fixed", strategy=strategy, top_k=5, filters=SVC)
    assert bug[0]["graph_entity_id"] == fix and "reject empty tokens" in bug[0]["content"]
    assert "bug:svc:#12" in ids_of(bug)
    by_author = memory.query("commits by Linus", strategy=strategy, top_k=5, filters=SVC)
    assert by_author[0]["graph_entity_id"] == fix
    assert [h for h in by_author if "graph: authored by Linus" in h["why"]] == by_author[:1]  # his only commit
    last = memory.query("who changed validate_token last and why", strategy=strategy, top_k=5, filters=SVC)
    assert last[0]["graph_entity_id"] == fix
    assert commit(shas, "feat") in ids_of(last)[:3]  # the earlier change comes next


@pytest.mark.parametrize("strategy", GRAPH_AWARE)
def test_module_users_and_file_memories(memory, strategy):
    users = memory.query("what uses module app.auth", strategy=strategy, top_k=5, filters=SVC)
    # app/api.py first: the importing file (the answer in every language), its module or its function
    assert users[0]["graph_entity_id"] in ("file:svc:app/api.py", "mod:svc:app.api", HANDLE_REQUEST)
    assert HANDLE_REQUEST in ids_of(users)  # its function calls into app.auth
    notes = memory.query("memories about file app/auth.py", strategy=strategy, top_k=5)
    assert notes[0]["graph_entity_id"] == "mem:notes:1"
    assert notes[0]["content"] == "Secrets for signing are rotated weekly"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_topic_question_finds_the_error_handlers(memory, strategy):
    hits = memory.query("functions related to error handling", strategy=strategy, top_k=3, filters=SVC)
    assert "fn:svc:app/errors.py:handle_error" in ids_of(hits)


def test_vector_only_never_opens_the_graph(fixture_home):
    with HybridLTM(fixture_home) as m:
        hits = m.query("validate the token signature", strategy="vector_only", top_k=3, filters=SVC)
        assert VALIDATE in ids_of(hits)
        assert all("neighbours" not in h and h["scores"]["defects"] == 0 for h in hits)
        assert m._graph is None or m._graph.build is None


def test_vector_first_expands_to_structure_and_history(memory, shas):
    hits = memory.query("validate the token signature", strategy="vector_first", top_k=5, depth=2, filters=SVC)
    hit = next(h for h in hits if h["graph_entity_id"] == VALIDATE)
    seen = {(n["relation"], n["direction"], n["id"]) for n in hit["neighbours"]}
    assert ("CALLS", "out", "fn:svc:app/auth.py:Validator._sign") in seen
    assert ("CALLS", "in", HANDLE_REQUEST) in seen
    assert ("HAS_METHOD", "in", "cls:svc:app/auth.py:Validator") in seen
    assert ("MODIFIES", "in", commit(shas, "fix")) in seen
    assert ("AFFECTS", "in", "bug:svc:#12") in seen
    hop2 = [n for n in hit["neighbours"] if n["hop"] == 2]
    assert all(n["via"] for n in hop2)
    assert hit["scores"]["defects"] > 0  # a bug affects it and a bug-fix commit modified it
    one = memory.query("validate the token signature", strategy="vector_first", top_k=5, depth=1, filters=SVC)
    assert all(n["hop"] == 1 for h in one for n in h["neighbours"])


def test_defect_signal_only_on_entities_with_bug_history(memory):
    hits = memory.query("parse_header validate_token", strategy="graph_only", top_k=10, filters=SVC)
    by_id = {h["graph_entity_id"]: h for h in hits}
    assert by_id[VALIDATE]["scores"]["defects"] == pytest.approx(1 / 2, abs=1e-3)  # FunctionDefects: one fix
    assert by_id["fn:svc:app/auth.py:parse_header"]["scores"]["defects"] == 0
    stored = memory.query("handle_error", strategy="graph_only", top_k=3, filters=SVC)[0]
    assert stored["graph_entity_id"] == "fn:svc:app/errors.py:handle_error"
    assert stored["scores"]["defects"] == pytest.approx(3 / 4)  # FunctionDefects: 2 fixes + 1 bug introduced


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_filters_hold_for_every_strategy(memory, shas, strategy):
    q = "token validation and error handling"
    other = memory.query(q, strategy=strategy, top_k=10, filters={"repo": "other"})
    assert other and all(h["repo"] == "other" for h in other)
    commits = memory.query(q, strategy=strategy, top_k=10, filters={"category": "commit_log"})
    assert commits and all(h["label"] == "Commit" for h in commits)
    errors = memory.query(q, strategy=strategy, top_k=10, filters={"path_prefix": "app/errors"})
    assert errors and all(h["file_path"].startswith("app/errors") for h in errors)
    window = memory.query(q, strategy=strategy, top_k=10,
                          filters={"since": "2023-11-15T00:13:20Z", "until": "2023-11-15T01:13:20Z"})
    allowed = {commit(shas, n, r) for n in ("feat", "api") for r in ("svc", "other")}
    assert window and set(ids_of(window)) <= allowed


def test_empty_home_answers_nothing(tmp_path):
    home = Home(tmp_path / "empty").create()
    with HybridLTM(home) as m:
        for strategy in STRATEGIES:
            assert m.query("what calls parse_header", strategy=strategy) == []


def test_quotes_and_cypher_text_are_data(memory, fixture_home):
    text = "Don't call \"eval\" on headers'); MATCH (n) DETACH DELETE n //"
    for strategy in STRATEGIES:
        hits = memory.query(text, strategy=strategy, top_k=3)
        assert "mem:notes:2" in ids_of(hits), strategy
        assert memory.query(text, strategy=strategy, filters={"path_prefix": "it's/\"x\""}) == []
    with open_current(fixture_home.graph) as conn:
        nodes, _ = counts(conn)
    assert nodes["Function"] == 2 * 9 and nodes["Memory"] == 2


def test_bad_strategy_depth_and_text_are_refused(memory):
    with pytest.raises(QueryError, match="unknown strategy 'fastest'"):
        memory.query("x", strategy="fastest")
    with pytest.raises(QueryError, match="depth 3"):
        memory.query("x", depth=3)
    with pytest.raises(QueryError, match="empty"):
        memory.query("  ")


def test_readers_keep_answering_while_a_graph_build_runs(fixture_home):
    before = current_build(fixture_home.graph)
    expected = HANDLE_REQUEST
    with HybridLTM(fixture_home) as m:
        assert m.query("what calls parse_header", strategy="graph_only", filters=SVC)[0]["graph_entity_id"] == expected
        # A build in progress: a new database open for writing, CURRENT not switched yet.
        building = builds_dir(fixture_home.graph) / ("99999999T999999-inprogress" + ENGINES[default_engine()].suffix)
        with open_database(building, read_only=False) as conn:
            for stmt in schema_ddl()[:2]:
                query(conn, stmt)
            for strategy in GRAPH_AWARE:
                assert m.query("what calls parse_header", strategy=strategy, filters=SVC)[0]["graph_entity_id"] == expected
            with HybridLTM(fixture_home) as fresh:  # a new reader opens CURRENT, not the build being written
                assert fresh.query("what calls parse_header", strategy="graph_only", filters=SVC)[0]["graph_entity_id"] == expected
        # A real build running in another thread while we query; CURRENT switches when it is done.
        answers, errors = [], []
        worker = threading.Thread(target=lambda: build_graph(fixture_home.graph, Lake(fixture_home.lake), reuse=False))
        worker.start()
        while worker.is_alive() or not answers:
            try:
                answers.append(m.query("what calls parse_header", strategy="graph_only", filters=SVC)[0]["graph_entity_id"])
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                errors.append(e)
        worker.join()
        assert errors == [] and set(answers) == {expected}
        after = current_build(fixture_home.graph)
        assert after != before
        assert m.query("what calls parse_header", strategy="graph_only", filters=SVC)[0]["graph_entity_id"] == expected
        assert m._graph.build == after  # the reader moved to the new build


def test_vector_first_answers_history_questions_from_its_expansion(memory, shas):
    fix, feat = commit(shas, "fix"), commit(shas, "feat")
    last = memory.query("who changed validate_token last and why", strategy="vector_first", top_k=5, filters=SVC)
    assert ids_of(last)[:2] == [fix, feat]  # both commits that modified it, the newest first
    assert "graph: modified validate_token (graph expansion)" in last[0]["why"]
    bug = memory.query("how was bug #12 fixed", strategy="vector_first", top_k=5, filters=SVC)
    assert bug[0]["graph_entity_id"] == fix and bug[0]["why"][0] == "graph: fixes bug #12 (graph expansion)"
    plain = memory.query("validate the token signature", strategy="vector_first", top_k=5, filters=SVC)
    assert not any("(graph expansion)" in w for h in plain for w in h["why"])  # only history questions
