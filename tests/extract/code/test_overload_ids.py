"""An overload keeps its id when lines above it are added or removed: its parameters name it, not its line."""

from ltm import ids
from ltm.extract.code.entities import extract_code
from ltm.extract.gitrepo import GitRepo
from tests.builder import RepoBuilder

JAVA = """package com.acme;

public class JsonReader {
    public Object read(String text) {
        return read(text, 0);
    }

    public Object read(String text, int depth) {
        return null;
    }

    public Object read(java.io.Reader in,   int depth) {
        return null;
    }
}
"""

# an unrelated edit above the overloads: a field and a method before them
JAVA_EDITED = JAVA.replace("public class JsonReader {\n", """public class JsonReader {
    private final int limit = 64;

    public int limit() {
        return limit;
    }

""")

CSHARP = """namespace Acme
{
    public class Parser
    {
        public int Parse(string text) { return 0; }
        public int Parse(string text, ref int position) { return 1; }
        public int Parse(System.IO.TextReader reader, params object[] options) { return 2; }
    }
}
"""

SWIFT = """final class Session {
    func request(_ url: String) {}
    func request(_ url: String, method: String = "GET") {}
    func request(_ url: String, didFail code: Int) {}
}
"""


def _function_ids(b: RepoBuilder, rev: str) -> dict[str, tuple[str, int]]:
    """Each function's id, with its vector id and first line, at one commit."""
    rows = extract_code(GitRepo(b.path), "r", rev=rev).tables["Function"]
    return {r["id"]: (r["vector_id"], r["line_start"]) for r in rows}


def _two_commits(tmp_path, path: str, before: str, after: str) -> tuple[dict, dict]:
    b = RepoBuilder(tmp_path / "repo")
    first = b.write(path, before).commit("add")
    second = b.write(path, after).commit("edit above")
    return _function_ids(b, first), _function_ids(b, second)


def test_java_overloads_keep_their_ids_when_lines_above_them_change(tmp_path):
    before, after = _two_commits(tmp_path, "src/main/java/com/acme/JsonReader.java", JAVA, JAVA_EDITED)
    fn = "fn:r:src/main/java/com/acme/JsonReader.java:JsonReader."
    overloads = {fn + "read", fn + "read(String,int)", fn + "read(java.io.Reader,int)"}
    assert set(before) == overloads
    assert set(after) == overloads | {fn + "limit"}
    for eid in overloads:
        assert before[eid][0] == after[eid][0] == ids.vector_id(eid)  # the vector row is replaced, not added
        assert after[eid][1] == before[eid][1] + 6  # the lines did move


def test_csharp_overloads_are_named_by_their_parameter_types_and_ref_modifiers(tmp_path):
    before, after = _two_commits(tmp_path, "src/Parser.cs", CSHARP, "// Copyright Acme\n\n" + CSHARP)
    fn = "fn:r:src/Parser.cs:Parser."
    assert set(before) == set(after) == {fn + "Parse", fn + "Parse(string,ref int)",
                                         fn + "Parse(System.IO.TextReader,object[])"}


def test_swift_overloads_are_named_by_their_argument_labels(tmp_path):
    before, after = _two_commits(tmp_path, "Sources/Net/Session.swift", SWIFT, "import Foundation\n\n" + SWIFT)
    fn = "fn:r:Sources/Net/Session.swift:Session."
    assert set(before) == set(after) == {fn + "request", fn + "request(_:method:)", fn + "request(_:didFail:)"}


JAVA_ENUM = """public enum Policy {
    STRICT {
        @Override public boolean allows(Class<?> c) { return false; }
    },
    LENIENT {
        @Override public boolean allows(Class<?> c) { return true; }
    };

    public abstract boolean allows(Class<?> c);
}
"""


def test_definitions_the_parameters_cannot_tell_apart_are_numbered_not_placed(tmp_path):
    """A Java enum's constants each define `allows(Class<?>)`: the second is `@2` however far down it moves."""
    before, after = _two_commits(tmp_path, "Policy.java", JAVA_ENUM, "import java.util.List;\n\n\n" + JAVA_ENUM)
    fn = "fn:r:Policy.java:Policy."
    assert set(before) == set(after) == {fn + "allows", fn + "allows(Class<?>)@2", fn + "allows(Class<?>)@3"}


def test_python_redefinitions_are_told_apart_by_parameters_then_by_their_order(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.write("m.py", "def f(x):\n    return 1\n\ndef f(y):\n    return 2\n\ndef f(x, y):\n    return 3\n").commit("dup")
    assert set(_function_ids(b, "HEAD")) == {"fn:r:m.py:f", "fn:r:m.py:f(_)@2", "fn:r:m.py:f(_,_)"}
