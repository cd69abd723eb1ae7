import re

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
        ("what calls detect", "callers", "detect"),
        # a verb inside a description is no name (bat: "detects" found the colour-scheme `detect`s)
        ("who calls the function that detects the syntax of a file", "search", None),
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


@pytest.mark.parametrize("name", ["JsonReader.kt", "Session.swift", "Router.php"])
def test_a_file_name_of_a_language_read_here_is_a_path_not_a_code_name(name):
    intent = parse(f"what changed in {name} last week")
    assert intent.paths == (name,)


def test_cypher_looking_text_never_becomes_a_subject():
    intent = parse("what calls x') MATCH (n) DETACH DELETE n //")
    # the quote, the parentheses and the statement never reach a subject: only single names do,
    # tried one by one against the graph's names and bound as parameters
    assert all(re.fullmatch(r"[\w.]+", c) for c in intent.candidates)
    assert "DETACH" in intent.names + intent.words + intent.candidates


@pytest.mark.parametrize(
    "text, kind, subject",
    [  # each relation in several phrasings, with the extra words users add
        ("Which functions call `make_context`?", "callers", "make_context"),
        ("could you tell me what calls Context.invoke in the package, please?", "callers", "Context.invoke"),
        ("where is Context.invoke used?", "callers", "Context.invoke"),
        ("functions called by Context.invoke", "callees", "Context.invoke"),
        ("Which functions does Engine.handleHTTPRequest call?", "callees", "Engine.handleHTTPRequest"),
        ("What does the function resolve_command call?", "callees", "resolve_command"),
        ("which modules import click.core?", "importers", "click.core"),
        ("what modules depend on starlette.routing", "importers", "starlette.routing"),
        ("what does starlette.routing import", "imports", "starlette.routing"),
        ("show me every subclass of click.ParamType please", "subclasses", "click.ParamType"),
        ("which classes inherit from HTTPException", "subclasses", "HTTPException"),
        ("what does Router inherit from", "bases", "Router"),
        ("Could you list the base classes of the Group class?", "bases", "Group"),
        ("what methods does the Context class have?", "methods", "Context"),
        ("methods of Command", "methods", "Command"),
        ("which commit introduced Context.forward", "introduced_by", "Context.forward"),
        ("Which commit moved split_arg_string into shell_completion.py?", "introduced_by", "split_arg_string"),
        ("when was get_name moved to routing.py?", "introduced_by", "get_name"),
        ("when was BaseCommand.main last changed", "last_change", "BaseCommand.main"),
        ("history of the function resolve_command", "modified_by", "resolve_command"),
        ("which files usually change together with core.py", "co_changed", "core.py"),
        # several words between "which" and the verb, and "pull in"
        ("Which functions of the package does get_app_dir call?", "callees", "get_app_dir"),
        ("Which files inside the package import click._compat?", "importers", "click._compat"),
        ("which modules under src/click pull in click.shell_completion, even lazily?", "importers", "click.shell_completion"),
        ("Which commit last changed src/click/globals.py?", "last_change", "src/click/globals.py"),
        ("what commit most recently modified lib/view.js", "last_change", "lib/view.js"),
        # handing work over is a call; the name before "calls"; several words before an imports verb
        ("which helper does utils.normalize_path delegate to?", "callees", "utils.normalize_path"),
        ("who hands work to run_sync in the package?", "callers", "run_sync"),
        ("which functions Router.dispatch calls, constructors included", "callees", "Router.dispatch"),
        ("list the helpers that parse_config calls", "callees", "parse_config"),
        ("Which of our own modules does app/server.js depend on?", "imports", "app/server.js"),
        ("what does the command line entry point cli/main.py load?", "imports", "cli/main.py"),
        ("What local modules does lib/router.js import?", "imports", "lib/router.js"),
        ("which methods are defined on the Session struct?", "methods", "Session"),
        ("Which functions belong to the Parser class?", "methods", "Parser"),
        ("how do I get a copy of the context that is safe to hand over to a worker?", "search", None),
    ],
)
def test_relations_survive_extra_words(text, kind, subject):
    intent = parse(text)
    assert (intent.kind, intent.subject) == (kind, subject)


def test_qualifiers_tests_and_what_is_asked_for():
    assert parse("What calls merge_setting inside the package?").scope == "package"
    assert parse("list all subclasses of ParamType only in src").scope == "src/"
    for left_out in ("which functions call get_route_path, leaving out the tests?",
                     "which files import the render package (tests excluded)?",
                     "who calls run_in_threadpool, not counting tests?", "callers of merge_setting without the tests"):
        assert parse(left_out).scope == "package", left_out  # the tests left out: the package's own code
    assert parse("who uses parse_args inside src?").scope == "src/"
    assert parse("which tests cover parse_args").about_tests
    assert not parse("what calls parse_args").about_tests
    assert parse("where is the request body parsed into form fields?").prefer == "code"
    assert parse("when was the session cookie handling changed and why?").prefer == "history"
    assert parse("Who calls `Validator.validate_token`?").prefer == "code"  # "who" here asks for code


def test_a_long_description_is_searched_not_parsed_as_a_relation():
    report = ("When I pass a default to an option that uses a custom type, the callback is called twice and "
              "then the value is converted again, which breaks my validation; this worked in the last release")
    intent = parse(report)
    assert intent.kind == "search" and intent.prefer == "code"


@pytest.mark.parametrize(
    "text,subject,source",
    [
        ("what does click.core import from click.exceptions", "click.core", "click.exceptions"),
        ("Which names does the module starlette.routing import from starlette.responses?", "starlette.routing",
         "starlette.responses"),
        ("could you tell me what src/click/core.py imports from click.types please", "src/click/core.py", "click.types"),
        ("what does starlette.routing import", "starlette.routing", None),
    ],
)
def test_an_import_question_names_the_module_imported_from(text, subject, source):
    intent = parse(text)
    assert (intent.kind, intent.subject, intent.source) == ("imports", subject, source)


@pytest.mark.parametrize(
    "text, kind, candidates",
    [
        # a `::` path is a dotted name: the class the graph knows as `Sinatra.Base`, not the module `Sinatra`
        ("what does Sinatra::Base inherit from", "bases", ("Sinatra.Base",)),
        ("which classes extend Rack::Protection::Base", "subclasses", ("Rack.Protection.Base",)),
        # a Ruby method's `!` is its name's; a `?` may be the question's mark, so both are candidates
        ("what calls dispatch!", "callers", ("dispatch!", "dispatch")),
        ("what calls valid?", "callers", ("valid", "valid?")),
        ("where is Context.invoke used?", "callers", ("Context.invoke",)),
        # Ruby's notation for an instance method; the graph's `Base.settings` where no class method shares the name
        ("what calls Sinatra::Base#settings", "callers", ("Sinatra.Base#settings",)),
    ],
)
def test_ruby_names_with_paths_and_method_suffixes(text, kind, candidates):
    intent = parse(text)
    assert (intent.kind, intent.candidates) == (kind, candidates)
