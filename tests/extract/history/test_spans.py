"""Entity spans for the history: the same names and lines as the HEAD extraction, cached by blob."""

import pytest

from ltm.extract.parse import parse_definitions
from ltm.extract.languages import language_for
from ltm.extract.history.spans import MEMORY_SPANS, Span, SpanCache, spans_of
from tests.extract.code import (test_lang_kotlin, test_lang_managed, test_lang_python_js, test_lang_ruby,
                                test_lang_systems)

FIXTURES = {
    name: getattr(mod, name)
    for mod, names in (
        (test_lang_python_js, ("PY", "JS", "TS", "TSX", "OBJECT_METHODS")),
        (test_lang_systems, ("GO", "RUST", "C", "CPP", "C_CONDITIONALS", "C_MACRO_STATEMENT")),
        (test_lang_managed, ("JAVA", "CS", "RUBY")),
        (test_lang_ruby, ("MIXINS", "ATTRIBUTES", "ALIASES", "NAMESPACES", "SINGLETONS")),
        (test_lang_kotlin, ("KOTLIN",)),
    )
    for name in names
}


@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_spans_name_entities_exactly_as_parse_definitions(fixture):
    checked = 0
    for path, text in FIXTURES[fixture].items():
        spec = language_for(path)
        if spec is None:
            continue
        src = text.encode()
        defs, _ = parse_definitions(spec, src)
        want = [(d["kind"], d["qualified_name"], d["line_start"], d["line_end"]) for d in defs]
        got = [(s.kind, s.qualified_name, s.line_start, s.line_end) for s in spans_of(spec, src)]
        assert got == want, path
        checked += len(want)
    assert checked > 0


def test_span_cache_survives_a_reopen(tmp_path):
    key = ("0" * 40, "python-x")
    spans = [Span("function", "f", "A.f", 2, 3, "abc")]
    c = SpanCache(tmp_path / "spans.sqlite")
    assert c.get(key) is False
    c.put(key, spans)
    c.put(("1" * 40, "python-x"), None)
    c.close()
    again = SpanCache(tmp_path / "spans.sqlite")
    assert again.get(key) == spans and again.get(("1" * 40, "python-x")) is None
    again.close()


def test_span_cache_memory_is_bounded_by_spans_and_the_file_still_answers(tmp_path):
    many = [Span("function", f"f{i}", f"f{i}", i, i, "h") for i in range(1000)]  # a large file's version
    c = SpanCache(tmp_path / "spans.sqlite")
    keys = [(f"{n:040d}", "python-x") for n in range(MEMORY_SPANS // 1000 + 20)]
    for k in keys:
        c.put(k, many)
    assert c._spans_held <= MEMORY_SPANS  # the oldest versions left memory...
    assert c.get(keys[0]) == many and c.get(keys[-1]) == many  # ...and are read back from the file
    c.close()
    small = SpanCache(None, memory_spans=2500)
    for k in keys[:10]:
        small.put(k, many)
    assert small._spans_held == 3000 and small.get(keys[6]) is False and small.get(keys[7]) == many  # the bound, then one version
    small.close()


VERSIONS = [
    "def a():\n    return 1\n",
    "import os\n\n\ndef a():\n    return 1\n\n\nclass K:\n    def m(self):\n        pass\n",
    "import os\n\n\ndef a():\n    x = 2\n    return x\n\n\nclass K:\n    def m(self):\n        pass\n\n    def n(self):\n        return 3",
    "import os\n\n\nclass K:\n    def n(self):\n        return 3\n\n\ndef b():\n    pass",
    "",
    "def c():\n    return 'no newline at the end'",
]


def test_older_versions_reparsed_from_newer_ones_match_fresh_parses(tmp_path):
    from ltm.extract.history.changes import iter_changes
    from ltm.extract.gitrepo import GitRepo
    from ltm.extract.history.version_chains import Version, parse_versions
    from tests.builder import RepoBuilder

    b = RepoBuilder(tmp_path / "v")
    for text in VERSIONS:
        b.write("m.py", text).commit("version")
    repo = GitRepo(b.path)
    spec = language_for("m.py")
    chain: list[Version] = []
    fresh = {}
    with repo.blobs() as blobs:
        for cc in iter_changes(repo, "v", "HEAD"):  # newest first
            for fc in cc.files:
                if not chain:
                    chain.append(Version((fc.new_blob, "x"), "python", fc.new_blob))
                    fresh[fc.new_blob] = spans_of(spec, blobs.read(fc.new_blob))
                if fc.old_blob != "0" * 40:
                    chain.append(Version((fc.old_blob, "x"), "python", fc.old_blob, 0, len(chain) - 1, fc.hunks))
                    fresh[fc.old_blob] = spans_of(spec, blobs.read(fc.old_blob))
        parsed = parse_versions(chain, blobs)
    assert len(chain) == len(VERSIONS)
    assert (parsed.scratch, parsed.reparsed) == (1, len(VERSIONS) - 1)
    got = dict(parsed.spans)
    assert {k[0]: v for k, v in got.items()} == fresh
    assert [s.qualified_name for s in fresh[chain[-2].key[0]]] == ["a", "K", "K.m"]


def test_the_span_cache_key_changes_with_the_definition_patterns_only(monkeypatch):
    """A new call or variable pattern keeps every cached span (and the SZZ results keyed by it); a new
    definition pattern makes them all stale."""
    import ltm.extract.history.spans as sp

    base = sp.query_text("python")

    def version(text: bytes) -> str:
        monkeypatch.setattr(sp, "query_text", lambda language: text)
        sp.spans_query.cache_clear()
        try:
            return sp.query_version.__wrapped__("python")
        finally:
            sp.spans_query.cache_clear()

    v0 = version(base)
    assert version(base + b"\n(assignment left: (identifier) @var.name right: (call function: (identifier) @var.type))\n") == v0
    assert version(base + b"\n(lambda) @function\n") != v0


def test_every_language_s_definition_patterns_compile_on_their_own():
    """The span cache key hashes the cut patterns as text (`query_version`): a language whose cut did not compile
    would be read through its whole query file while keyed by part of it."""
    import ltm.extract.history.spans as sp
    from ltm.extract.languages import LANGUAGES

    assert [name for name in LANGUAGES if sp.spans_query(name) is None] == []


def test_the_szz_settings_compile_no_query(monkeypatch):
    """Every bugs stage asks for the settings string, which names every language's span patterns: it is made from
    their text, without compiling fourteen grammars' queries (about 0.6 s of each run, most for languages
    the repository does not have)."""
    import ltm.extract.history.spans as sp
    from ltm.bugs import fix_store

    def refuse(*args, **kwargs):
        raise AssertionError("a query was compiled")

    monkeypatch.setattr(sp, "Query", refuse)
    sp.spans_query.cache_clear()
    sp.query_version.cache_clear()
    try:
        setting = fix_store.settings(100, (), 50)
    finally:
        sp.spans_query.cache_clear()
        sp.query_version.cache_clear()
    assert setting.startswith("v") and "queries=" in setting


def test_a_binary_version_in_a_chain_gets_no_spans_and_the_older_one_is_parsed_from_scratch(tmp_path):
    """A version with a NUL byte (git diffs it as text when told to) has no spans; the version that was to be
    reparsed from it still gets the spans of a fresh parse."""
    from ltm.extract.gitrepo import GitRepo
    from ltm.extract.history.version_chains import Version, parse_versions
    from tests.builder import RepoBuilder

    b = RepoBuilder(tmp_path / "bin")
    texts = [b"def old():\n    return 1\n", b"def mid():\n    return '\0'\n", b"class New:\n    def m(self):\n        pass\n"]
    blobs_by_version = []
    for text in texts:
        b.write("m.py", text).commit("version")
        blobs_by_version.append(b.git("rev-parse", "HEAD:m.py"))
    new, mid, old = reversed(blobs_by_version)
    chain = [Version((new, "x"), "python", new), Version((mid, "x"), "python", mid, 0, 0, None),
             Version((old, "x"), "python", old, 0, 1, None)]
    with GitRepo(b.path).blobs() as blobs:
        parsed = parse_versions(chain, blobs)
        assert blobs.read(old) == texts[0]  # the reader is still in step after the job
    got = dict(parsed.spans)
    assert got[(mid, "x")] is None
    assert [s.qualified_name for s in got[(old, "x")]] == ["old"]
    assert [s.qualified_name for s in got[(new, "x")]] == ["New", "New.m"]
    assert (parsed.scratch, parsed.reparsed, parsed.skipped) == (2, 0, 1)


def test_blob_sizes_come_without_reading_the_blobs_and_a_missing_one_is_none(tmp_path):
    from ltm.extract.gitrepo import GitRepo
    from tests.builder import RepoBuilder

    b = RepoBuilder(tmp_path / "sizes")
    b.write("a.py", "x = 1\n").write("b.py", "y = 22222\n" * 100).commit("two files")
    a, bb = b.git("rev-parse", "HEAD:a.py"), b.git("rev-parse", "HEAD:b.py")
    with GitRepo(b.path).blobs() as blobs:
        assert blobs.sizes([a, bb, "1" * 40]) == {a: 6, bb: 1000, "1" * 40: None}
        assert blobs.sizes([bb]) == {bb: 1000}  # the check process answers again
        assert blobs.read(a) == b"x = 1\n"


C_VERSIONS = [
    "int helper(int x) { return x; }\n\nint after(void) { return helper(1); }\n",
    "int helper(int x) { return x; }\n\n#ifdef W\nint umain(int c) {\n#else\nint main(int c) {\n#endif\n"
    "  return helper(c);\n}\n\nint after(void) { return helper(1); }\n",
    "int helper(int x) { return x + 1; }\n\n#ifdef W\nint umain(int c) {\n#else\nint main(int c) {\n#endif\n"
    "  return helper(c);\n}\n\nint after(void) { return helper(2); }\n",
]


def test_c_versions_reparsed_from_newer_ones_are_read_by_their_first_if_branches_as_at_head(tmp_path):
    from ltm.extract.history.changes import iter_changes
    from ltm.extract.gitrepo import GitRepo
    from ltm.extract.history.version_chains import Version, parse_versions
    from tests.builder import RepoBuilder

    b = RepoBuilder(tmp_path / "v")
    for text in C_VERSIONS:
        b.write("m.c", text).commit("version")
    repo = GitRepo(b.path)
    spec = language_for("m.c")
    chain: list[Version] = []
    with repo.blobs() as blobs:
        for cc in iter_changes(repo, "v", "HEAD"):  # newest first
            for fc in cc.files:
                if not chain:
                    chain.append(Version((fc.new_blob, "x"), "c", fc.new_blob))
                if fc.old_blob != "0" * 40:
                    chain.append(Version((fc.old_blob, "x"), "c", fc.old_blob, 0, len(chain) - 1, fc.hunks))
        parsed = parse_versions(chain, blobs)
    got = {k[0]: [s.qualified_name for s in v] for k, v in parsed.spans}
    assert [got[v.key[0]] for v in chain] == [["helper", "umain", "after"]] * 2 + [["helper", "after"]]
    for text in C_VERSIONS:  # the names and lines the HEAD extraction gives each version
        defs, _ = parse_definitions(spec, text.encode())
        assert [(s.qualified_name, s.line_start, s.line_end) for s in spans_of(spec, text.encode())] == [
            (d["qualified_name"], d["line_start"], d["line_end"]) for d in defs]
