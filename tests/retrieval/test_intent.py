import pytest

from ltm.retrieval.intent import parse


@pytest.mark.parametrize(
    "text, kind, subject",
    [
        ("what calls parse_header", "callers", "parse_header"),
        ("Who calls `Validator.validate_token`?", "callers", "Validator.validate_token"),
        ("callers of retry()", "callers", "retry"),
        ("what does handle_request call", "callees", "handle_request"),
        ("what uses module app.auth", "importers", "app.auth"),
        ("which files import requests.adapters?", "importers", "requests.adapters"),
        ("commits by Grace Hopper", "author", "Grace Hopper"),
        ("how was bug #12 fixed", "bugfix", "12"),
        ("memories about file app/auth.py", "file_memories", "app/auth.py"),
        ("who changed function validate_token last and why", "last_change", "validate_token"),
        ("functions related to error handling", "search", None),
        ("is #12 still open", "search", None),
    ],
)
def test_question_patterns(text, kind, subject):
    intent = parse(text)
    assert (intent.kind, intent.subject) == (kind, subject)


def test_search_keeps_code_names_paths_refs_and_label_hints():
    intent = parse("functions in app/auth.py like Validator.validate_token touching #7 and error handling")
    assert intent.labels == ("Function",)
    assert intent.paths == ("app/auth.py",)
    assert intent.bug_refs == ("#7",)
    assert "Validator.validate_token" in intent.names
    assert {"error", "handling"} <= set(intent.words) and "functions" not in intent.words


def test_cypher_looking_text_never_becomes_a_subject():
    intent = parse("what calls x') MATCH (n) DETACH DELETE n //")
    assert intent.kind == "search" and intent.subject is None
    assert "DETACH" in intent.names + intent.words  # just terms to search for, bound as parameters later
