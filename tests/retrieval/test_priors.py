"""Priors a user expects: package code ahead of tests and examples, code ahead of commits for
where-questions, commits ahead for when/who/why, and a folder the question names."""

from ltm.retrieval.intent import parse
from ltm.code_paths import is_auxiliary
from ltm.retrieval.priors import factor

PKG = "fn:r:src/pkg/core.py:Context.invoke"
TEST = "fn:r:tests/test_core.py:test_invoke"
EXAMPLE = "fn:r:examples/repo/repo.py:cli"
COMMIT = "commit:r:0123456789abcdef"


def test_tests_examples_docs_and_vendored_code_are_auxiliary():
    for path in ("tests/test_core.py", "pkg/tests/helpers.py", "examples/app.py", "docs/conf.py",
                 "vendor/x/y.go", "lib/router.test.js", "gin_test.go", "bench/run.py", "conftest.py",
                 "Src/Newtonsoft.Json.Tests/JsonConvertTest.cs", "Foo.UnitTests/BarTests.cs"):
        assert is_auxiliary(path), path
    for path in ("src/pkg/core.py", "lib/router/index.js", "gin.go", "context.go", "testing_utils_public.py",
                 "Src/Newtonsoft.Json/JsonConvert.cs"):
        assert not is_auxiliary(path), path


def test_package_code_leads_tests_unless_the_question_is_about_tests():
    q = parse("what calls Context.invoke")
    assert factor(PKG, q) > factor(TEST, q) and factor(PKG, q) > factor(EXAMPLE, q)
    about_tests = parse("which tests call Context.invoke")
    assert factor(TEST, about_tests) == factor(PKG, about_tests)


def test_a_question_that_leaves_tests_out_or_only_mentions_one_still_puts_package_code_first():
    for text in ("Which functions call Context.invoke, leaving out the tests?",
                 "who calls Context.invoke outside the tests?",
                 "What are all the callers of Context.invoke in the non-test code?",
                 "Which functions call Context.invoke (ignore tests and benchmarks)?",
                 "How can a test run my command in-process and get back its exit code?",
                 "ANSI codes are not stripped from the prompt after upgrading. I had failing unit tests after "
                 "upgrading to the new release and the output of my command still holds the escape codes when "
                 "it is not a terminal"):
        q = parse(text)
        assert factor(PKG, q) > factor(TEST, q), text
    for text in ("where is Context.invoke tested?", "the tests for Context.invoke",
                 "what calls Context.invoke in the tests?", "which test functions use Context.invoke?"):
        q = parse(text)
        assert factor(TEST, q) == factor(PKG, q), text


def test_a_test_module_inside_a_package_file_is_test_code():
    # Rust's `#[cfg(test)] mod tests { ... }` in `src/walk.rs`: its functions come after the package's callers
    q = parse("what calls search_str_for_entry")
    inline = "fn:r:src/walk.rs:tests.search_str_for_entry_with_relative_path"
    assert factor("fn:r:src/walk.rs:WorkerState.spawn_senders", q) > factor(inline, q)
    assert factor("fn:r:src/fmt/mod.rs:fmt_tests.parse_empty", q) == factor(inline, q)
    assert factor("fn:r:src/walk.rs:tests_helper", q) == factor("fn:r:src/walk.rs:scan", q)


def test_code_leads_commits_for_where_and_commits_lead_for_when():
    where = parse("where is the request body parsed into form fields?")
    assert factor(PKG, where) > factor(COMMIT, where)
    when = parse("when was the session cookie handling changed and why?")
    assert factor(COMMIT, when) > factor(PKG, when)


def test_code_leads_notes_and_documentation_for_where_but_not_for_what_we_decided():
    doc, note = "mem:docs:r:docs/config.md#2", "mem:jsonl:n1"
    where = parse("Where are settings read from the environment turned into booleans?")
    assert factor(PKG, where) > factor(doc, where) and factor(PKG, where) > factor(note, where)
    decided = parse("what did we decide about casting settings to booleans?")
    assert factor(note, decided) > factor(PKG, decided)


def test_a_named_folder_keeps_what_lies_outside_it_below():
    q = parse("list all subclasses of ParamType only in src")
    assert factor(PKG, q) > factor("cls:r:lib/pkg/types.py:Choice", q)


def test_a_removed_entity_goes_below_a_live_one_unless_the_past_is_asked_about():
    from ltm.graph.node import Node

    live, gone = Node(PKG, "Function"), Node("fn:r:src/pkg/old.py:invoke", "Function", removed=True)
    q = parse("where is the command invoked")
    assert factor(live.id, q, live) > factor(gone.id, q, gone)
    past = parse("where was the command invoked before it was removed")
    assert factor(gone.id, past, gone) == factor(live.id, past, live)


def test_a_question_about_what_the_team_decided_puts_memories_first():
    q = parse("what did we decide about trusting proxies for the client address?")
    assert q.prefer == "memory"
    assert factor("mem:jsonl:m3", q) > factor(PKG, q) and factor("mem:jsonl:m3", q) > factor(COMMIT, q)
    assert parse("where is the client address computed").prefer == "code"


def test_a_leading_when_clause_is_a_condition_and_the_where_after_it_asks_for_code():
    q = parse("When a worker crashes mid-request and the error is logged, where is the cookie value hidden?")
    assert factor(PKG, q) > factor(COMMIT, q)
    when = parse("When did the worker start hiding the cookie value?")
    assert factor(COMMIT, when) > factor(PKG, when)


def test_a_why_question_that_also_asks_where_is_answered_by_code():
    q = parse("Why are multi-part uploads never buffered in memory, and where is that decided?")
    assert q.kind == "search"  # not the history of something named "multi"
    assert factor(PKG, q) > factor(COMMIT, q)
    named = parse("Why does the client retry on a 503, and where is that decided?")
    assert named.kind == "search" and factor(PKG, named) > factor(COMMIT, named)
    assert parse("Why does the client retry on a 503?").kind == "last_change"  # a why-question alone: its history
