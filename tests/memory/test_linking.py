"""The linking rules, one by one, on a small hand-written code index."""

import json
import math

import polars as pl
import pytest

from ltm.memory.linking import CodeIndex, link_memories, memory_frame

FILES = [
    ("file:svc:app/auth.py", "svc", "app/auth.py"),
    ("file:svc:app/util.py", "svc", "app/util.py"),
    ("file:svc:app/tokens/store.py", "svc", "app/tokens/store.py"),
    ("file:svc:tests/auth.py", "svc", "tests/auth.py"),
    ("file:web:web/views.py", "web", "web/views.py"),
    ("file:web:web/forms.py", "web", "web/forms.py"),
    *[(f"file:svc:tests/test_{k}.py", "svc", f"tests/test_{k}.py") for k in range(6)],
]
# id, label, repo, name, qualified_name, file_path, module
ENTITIES = [
    ("fn:svc:app/auth.py:Validator.validate_token", "Function", "svc", "validate_token", "Validator.validate_token", "app/auth.py", "app.auth"),
    ("fn:svc:app/auth.py:parse_header", "Function", "svc", "parse_header", "parse_header", "app/auth.py", "app.auth"),
    ("cls:svc:app/auth.py:Validator", "Class", "svc", "Validator", "Validator", "app/auth.py", "app.auth"),
    ("fn:svc:app/util.py:retry", "Function", "svc", "retry", "retry", "app/util.py", "app.util"),
    ("fn:svc:app/util.py:run", "Function", "svc", "run", "run", "app/util.py", "app.util"),
    ("fn:svc:app/util.py:update", "Function", "svc", "update", "update", "app/util.py", "app.util"),
    ("fn:svc:app/util.py:__init__", "Function", "svc", "__init__", "Thing.__init__", "app/util.py", "app.util"),
    # `normalize` is defined three times: the ambiguity rule
    ("fn:svc:app/util.py:normalize", "Function", "svc", "normalize", "normalize", "app/util.py", "app.util"),
    ("fn:svc:app/tokens/store.py:normalize", "Function", "svc", "normalize", "normalize", "app/tokens/store.py", "app.tokens.store"),
    ("fn:web:web/forms.py:normalize", "Function", "web", "normalize", "normalize", "web/forms.py", "web.forms"),
    ("fn:web:web/views.py:render", "Function", "web", "render", "render", "web/views.py", "web.views"),
    ("fn:web:web/views.py:Conn.host", "Function", "web", "host", "Conn.host", "web/views.py", "web.views"),
    # `create_app`: the package's factory, and look-alikes in tests and examples
    ("fn:svc:app/factory.py:create_app", "Function", "svc", "create_app", "create_app", "app/factory.py", "app.factory"),
    ("fn:svc:tests/conftest.py:create_app", "Function", "svc", "create_app", "create_app", "tests/conftest.py", "tests.conftest"),
    ("fn:svc:examples/blog/app.py:create_app", "Function", "svc", "create_app", "create_app", "examples/blog/app.py", "examples.blog.app"),
    # `make_client`: only in tests, six times
    *[(f"fn:svc:tests/test_{k}.py:make_client", "Function", "svc", "make_client", "make_client", f"tests/test_{k}.py",
       f"tests.test_{k}") for k in range(6)],
]


@pytest.fixture(scope="module")
def code() -> CodeIndex:
    files = pl.DataFrame(FILES, schema=["id", "repo", "path"], orient="row")
    ents = pl.DataFrame(ENTITIES, schema=["id", "label", "repo", "name", "qualified_name", "file_path", "module"], orient="row")
    return CodeIndex.build(files, ents)


def links_of(code, content="", **md):
    row = {"id": "m1", "content": content, **md}
    if "graph_links" in row:
        row["graph_links"] = json.dumps(row["graph_links"])
    result = link_memories(memory_frame([row]), code)
    return {(r["dst"], r["relevance_score"], r["context"]) for r in result.links.to_dicts()}, result


def targets(code, content="", **md):
    return {dst: score for dst, score, _ in links_of(code, content, **md)[0]}


@pytest.mark.parametrize("path", ["app/auth.py", "/home/ada/src/svc/app/auth.py", "./app/auth.py",
                                  "file:///home/ada/src/svc/app/auth.py", "app\\auth.py"])
def test_metadata_file_path_absolute_relative_or_uri_links_the_file_with_relevance_one(code, path):
    links, _ = links_of(code, "no names here", file_path=path)
    assert links == {("file:svc:app/auth.py", 1.0, "metadata_file_match: app/auth.py")}


def test_partial_path_picks_the_best_match_and_a_tie_links_each(code):
    assert targets(code, "x", file_path="tokens/store.py") == {"file:svc:app/tokens/store.py": 1.0}
    # `auth.py` alone matches app/auth.py and tests/auth.py equally well: both are linked
    assert targets(code, "x", file_path="auth.py") == {"file:svc:app/auth.py": 1.0, "file:svc:tests/auth.py": 1.0}
    # a longer suffix decides: only the file under app/
    assert targets(code, "x", file_path="src/svc/app/auth.py") == {"file:svc:app/auth.py": 1.0}


def test_path_that_matches_no_file_links_nothing(code):
    assert targets(code, "x", file_path="lib/auth.py") == {}


def test_function_name_in_content_links_with_0_8(code):
    links, _ = links_of(code, "refactored the validation in validate_token today")
    assert links == {("fn:svc:app/auth.py:Validator.validate_token", 0.8, "content_name_match: validate_token")}


@pytest.mark.parametrize("content", [
    "validate_tokens is new", "my_validate_token helper", "Validate_Token", "VALIDATE_TOKEN",
    "revalidate_token", "validate_token2",
])
def test_names_match_only_whole_identifiers_and_case_sensitively(code, content):
    assert targets(code, content) == {}


def test_punctuation_and_calls_are_identifier_boundaries(code):
    hits = targets(code, "see `parse_header()`, then (retry()).")
    assert hits == {"fn:svc:app/auth.py:parse_header": 0.8, "fn:svc:app/util.py:retry": 0.8}


def test_names_shorter_than_four_characters_and_stop_words_never_match(code):
    # `run` is 3 characters; `update` is on the stop list; `__init__` is a dunder
    assert targets(code, "run the update in __init__ and run again") == {}


def test_qualified_name_scores_higher_than_the_bare_name(code):
    hits = targets(code, "Validator.validate_token rejects expired tokens")
    # the memory is about the method: the class name inside the qualified name links nothing
    assert hits == {"fn:svc:app/auth.py:Validator.validate_token": 0.9}
    # the class named by itself links to the class
    assert targets(code, "the Validator holds the secret") == {"cls:svc:app/auth.py:Validator": 0.8}


def test_a_qualified_mention_says_which_definition_a_bare_one_means(code):
    hits = targets(code, "util.normalize strips accents; call normalize before comparing")
    assert hits == {"fn:svc:app/util.py:normalize": 0.9}


def test_module_qualified_name_scores_higher(code):
    links, _ = links_of(code, "call auth.parse_header first")
    assert links == {("fn:svc:app/auth.py:parse_header", 0.9, "content_name_match: auth.parse_header")}
    assert targets(code, "app.util.retry wraps it") == {"fn:svc:app/util.py:retry": 0.9}


def test_a_name_qualified_by_its_package_means_the_package_definition(code):
    # `app.parse_header` as a package re-exports it (`click.echo` for click.utils.echo)
    assert targets(code, "call app.parse_header first") == {"fn:svc:app/auth.py:parse_header": 0.9}


def test_a_function_name_in_the_metadata_reads_as_code(code):
    # `retry` is also a word: the memory's metadata says it is the function
    assert targets(code, "must back off exponentially") == {}
    assert targets(code, "must back off exponentially", function_name="retry") == {"fn:svc:app/util.py:retry": 0.8}
    assert targets(code, "retry must back off", function_name="retry") == {"fn:svc:app/util.py:retry": 0.8}


def test_class_names_link_to_classes_only(code):
    links, _ = links_of(code, "the Validator holds the secret")
    assert links == {("cls:svc:app/auth.py:Validator", 0.8, "content_name_match: Validator")}
    assert {r["rel"] for r in links_of(code, "the Validator")[1].links.to_dicts()} == {"RELATES_TO_CLASS"}


def test_ambiguous_name_prefers_own_file_then_module_then_project_and_stays_in_its_repository(code):
    # `normalize` is also a word: written as a call it is code
    own_file = targets(code, "normalize() is slow", file_path="app/util.py")
    # the memory's own file defines it: that definition, not the other two
    assert own_file == {"file:svc:app/util.py": 1.0, "fn:svc:app/util.py:normalize": 0.8}
    two = 0.1 * math.log2(2)  # half as sure: two definitions could be meant
    same_module = targets(code, "normalize()", file_path="app/auth.py")
    # app/util.py sits in the folder of app/auth.py; web's definition is another repository's
    assert same_module == {"file:svc:app/auth.py": 1.0, "fn:svc:app/util.py:normalize": 0.75,
                           "fn:svc:app/tokens/store.py:normalize": round(0.7 - two, 4)}
    other_repo = targets(code, "normalize()", file_path="web/views.py")
    assert other_repo == {"file:web:web/views.py": 1.0, "fn:web:web/forms.py:normalize": 0.8}  # the one left
    by_project = targets(code, "normalize()", project_id="svc")
    assert by_project == {
        "fn:svc:app/util.py:normalize": round(0.7 - two, 4),
        "fn:svc:app/tokens/store.py:normalize": round(0.7 - two, 4),
    }
    three = 0.1 * math.log2(3)
    nowhere = targets(code, "normalize()")  # no repository can be told: every definition, less sure
    assert nowhere == {"fn:svc:app/util.py:normalize": round(0.6 - three, 4),
                       "fn:svc:app/tokens/store.py:normalize": round(0.6 - three, 4),
                       "fn:web:web/forms.py:normalize": round(0.6 - three, 4)}


def test_a_name_mentioned_many_times_links_once_with_the_best_score(code):
    result = links_of(code, "retry, retry and app.util.retry again; retry")[1]
    rows = result.links.to_dicts()
    assert [(r["dst"], r["relevance_score"]) for r in rows] == [("fn:svc:app/util.py:retry", 0.9)]


def test_explicit_graph_links_are_honoured_with_their_properties(code):
    links, result = links_of(code, "nothing named", graph_links=[
        {"type": "RELATES_TO_FUNCTION", "target": "fn:web:web/views.py:render",
         "properties": {"relevance_score": 0.5, "context": "reviewed"}},
        {"type": "RELATES_TO_FILE", "target": "util.py", "properties": {}},
        {"type": "RELATES_TO_CLASS", "target": "Validator"},
    ])
    assert links == {
        ("fn:web:web/views.py:render", 0.5, "explicit: reviewed"),
        ("file:svc:app/util.py", 1.0, "explicit"),
        ("cls:svc:app/auth.py:Validator", 1.0, "explicit"),
    }
    assert result.failures == []


def test_explicit_link_wins_over_the_automatic_link_to_the_same_entity(code):
    links, _ = links_of(code, "parse_header", graph_links=[
        {"type": "RELATES_TO_FUNCTION", "target": "parse_header", "properties": {"relevance_score": 0.3}}])
    assert links == {("fn:svc:app/auth.py:parse_header", 0.3, "explicit")}


def test_unresolvable_explicit_links_are_counted_failures_and_the_rest_still_links(code):
    links, result = links_of(code, "retry() later", graph_links=[
        {"type": "RELATES_TO_FUNCTION", "target": "no_such_function"},
        {"type": "SIMILAR_TO", "target": "mem:jsonl:2"},
    ])
    assert links == {("fn:svc:app/util.py:retry", 0.8, "content_name_match: retry")}
    assert [m for m, _ in result.failures] == ["m1", "m1"]
    assert "no_such_function" in result.failures[0][1] and "SIMILAR_TO" in result.failures[1][1]


def test_links_are_a_pure_function_of_memories_and_code(code):
    rows = [{"id": f"m{i}", "content": f"retry() {i} parse_header", "file_path": "app/auth.py"} for i in range(5)]
    a = link_memories(memory_frame(rows), code).links
    b = link_memories(memory_frame(list(reversed(rows))), code).links
    assert a.equals(b) and a.height == 15


def test_a_common_word_on_the_stop_list_links_only_when_qualified(code):
    assert targets(code, "a cross-host redirect drops the host header") == {}
    assert targets(code, "Conn.host is stale") == {"fn:web:web/views.py:Conn.host": 0.9}


def test_the_package_definition_wins_over_tests_and_examples(code):
    assert targets(code, "create_app reads the settings from the environment") == {"fn:svc:app/factory.py:create_app": 0.8}


def test_a_memory_about_tests_keeps_the_test_definitions(code):
    hits = targets(code, "the tests build their app with create_app and a temporary folder")
    assert "fn:svc:tests/conftest.py:create_app" in hits
    assert hits["fn:svc:app/factory.py:create_app"] > hits["fn:svc:tests/conftest.py:create_app"]


def test_a_name_defined_too_often_links_nowhere_but_to_the_memory_own_file(code):
    assert targets(code, "make_client opens a session") == {}
    own = targets(code, "make_client opens a session", file_path="tests/test_3.py")
    assert own == {"file:svc:tests/test_3.py": 1.0, "fn:svc:tests/test_3.py:make_client": 0.8}


def test_a_go_package_qualified_name_links_only_that_package_definition():
    files = pl.DataFrame([("file:g:binding/binding.go", "g", "binding/binding.go"), ("file:g:gin.go", "g", "gin.go"),
                          ("file:g:routes_test.go", "g", "routes_test.go")], schema=["id", "repo", "path"], orient="row")
    ents = pl.DataFrame([
        ("fn:g:binding/binding.go:Default", "Function", "g", "Default", "Default", "binding/binding.go",
         "github.com/gin-gonic/gin/binding"),
        ("fn:g:gin.go:Default", "Function", "g", "Default", "Default", "gin.go", "github.com/gin-gonic/gin"),
        ("cls:g:routes_test.go:route", "Class", "g", "route", "route", "routes_test.go", "github.com/gin-gonic/gin"),
    ], schema=["id", "label", "repo", "name", "qualified_name", "file_path", "module"], orient="row")
    code = CodeIndex.build(files, ents)
    assert targets(code, "bodies are decoded by binding.Default(method, contentType)") == {
        "fn:g:binding/binding.go:Default": 0.9}
    # a test-only name beside the memory's own file (same folder) is still a word, not a link
    assert targets(code, "each route is registered once", file_path="gin.go") == {"file:g:gin.go": 1.0}


# The memories the rules above are checked on, and more: each rule's case, with and without metadata.
BATCH = [
    ("refactored the validation in validate_token today", {}),
    ("see `parse_header()`, then (retry()).", {}),
    ("Validator.validate_token rejects expired tokens", {}),
    ("the Validator holds the secret", {}),
    ("util.normalize strips accents; call normalize before comparing", {}),
    ("call auth.parse_header first", {}),
    ("must back off exponentially", {"function_name": "retry"}),
    ("normalize() is slow", {"file_path": "app/util.py"}),
    ("normalize()", {"file_path": "app/auth.py"}),
    ("normalize()", {"file_path": "web/views.py"}),
    ("normalize()", {"project_id": "svc"}),
    ("normalize()", {}),
    ("normalize() in app/tokens/store.py and web/forms.py", {}),
    ("retry, retry and app.util.retry again; retry", {}),
    ("Conn.host is stale; render() too", {}),
    ("create_app reads the settings from the environment", {}),
    ("the tests build their app with create_app and a temporary folder", {}),
    ("make_client opens a session", {"file_path": "tests/test_3.py"}),
    ("make_client() in the tests opens a session", {}),
    ("parse_header and render() and normalize() everywhere", {}),
]


def test_one_memory_at_a_time_links_as_a_batch_does(code):
    """An online add links one memory (scored over its few rows); a backfill links them all at once
    (scored as frames): every memory gets the same links, scores and reasons either way."""
    rows = [{"id": f"m{i}", "content": content, **md} for i, (content, md) in enumerate(BATCH)]
    batch = link_memories(memory_frame(rows), code).links
    alone = pl.concat([link_memories(memory_frame([row]), code).links for row in rows], how="vertical")
    assert batch.height > len(BATCH)  # the cases link something
    assert sorted(batch.rows()) == sorted(alone.rows())
