"""The words of code names against a question's words: stems, and the past forms questions use."""

from ltm.graph.name_words import NameWords, name_words, stem


def test_names_and_questions_meet_on_stems():
    assert {stem("validated"), "token"} <= name_words("Validator.validate_token")
    assert stem("retries") == stem("retry")


def test_irregular_past_forms_find_the_verb_in_a_name():
    index = NameWords(["build_graph", "GraphView.neighbours", "write_table"])
    best = index.match(["how", "graph", "built"], limit=1)[0]
    assert best[2] == 0  # build_graph: "built" and "graph" both shared
    assert index.match(["table", "written"], limit=1)[0][2] == 2
