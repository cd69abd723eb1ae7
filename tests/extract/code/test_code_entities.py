from ltm.extract.code.entities import extract_code
from ltm.extract.gitrepo import GitRepo
from tests.builder import RepoBuilder


def _by(rows, key="qualified_name"):
    return {r[key]: r for r in rows}


def test_python_entities_match_the_source(repo):
    out = extract_code(GitRepo(repo.path), "sample")
    t = out.tables
    assert {r["path"] for r in t["File"]} == {"README.md", "app/__init__.py", "app/util.py", "app/auth.py"}
    assert {(r["name"], r["external"]) for r in t["Module"]} == {
        ("app", False), ("app.util", False), ("app.auth", False), ("hashlib", True)
    }
    classes = _by(t["Class"])
    assert set(classes) == {"TokenError", "Validator"}
    assert classes["Validator"]["docstring"] == "Checks tokens against a secret."
    assert (classes["Validator"]["line_start"], classes["Validator"]["line_end"]) == (10, 22)
    funcs = _by(t["Function"])
    assert set(funcs) == {
        "Validator.__init__", "Validator.validate_token", "Validator._sign", "parse_header",
        "parse_header.clean", "retry",
    }
    v = funcs["Validator.validate_token"]
    assert v["is_method"] is True and v["file_path"] == "app/auth.py"
    assert v["signature"] == "def validate_token(self, token)"
    assert v["docstring"] == "Return True when the token's signature matches."
    assert (v["line_start"], v["line_end"]) == (16, 19)
    assert funcs["parse_header.clean"]["is_method"] is False
    assert v["id"] == "fn:sample:app/auth.py:Validator.validate_token"
    methods = {(e["src"], e["dst"]) for e in t["HAS_METHOD"]}
    assert methods == {
        ("cls:sample:app/auth.py:Validator", f"fn:sample:app/auth.py:Validator.{m}")
        for m in ("__init__", "validate_token", "_sign")
    }
    defined = {(e["src"], e["dst"]) for e in t["DEFINED_IN"]}
    assert ("fn:sample:app/util.py:retry", "file:sample:app/util.py") in defined
    assert len(defined) == 8
    assert {(e["src"], e["dst"]) for e in t["BELONGS_TO"]} == {
        ("file:sample:app/__init__.py", "mod:sample:app"),
        ("file:sample:app/util.py", "mod:sample:app.util"),
        ("file:sample:app/auth.py", "mod:sample:app.auth"),
    }


def test_syntax_errors_binary_and_huge_files(tmp_path):
    b = RepoBuilder(tmp_path / "bad")
    b.write("ok.py", "def fine():\n    return 1\n\ndef broken(:\n    pass\n")
    b.write("blob.py", b"\x00\x01binary")
    b.write("big.py", "x = 1\n" * 300_000)
    b.write("latin.py", "def caf\xe9():\n    pass\n".encode("latin-1"))
    b.commit("odd files")
    out = extract_code(GitRepo(b.path), "bad")
    names = {r["qualified_name"] for r in out.tables["Function"]}
    assert "fine" in names
    assert out.syntax_error_files >= 1
    assert out.skipped == {"binary": 1, "too_large": 1}
    reasons = {r["path"]: r["skip_reason"] for r in out.tables["File"]}
    assert reasons == {"ok.py": None, "blob.py": "binary", "big.py": "too_large", "latin.py": None}
    assert len(out.tables["File"]) == 4


def test_symlinks_are_not_followed(tmp_path):
    b = RepoBuilder(tmp_path / "links")
    b.write("real.py", "def real():\n    pass\n")
    (b.path / "escape.py").symlink_to("/etc/passwd")
    b.commit("links")
    out = extract_code(GitRepo(b.path), "links")
    assert {r["path"] for r in out.tables["File"]} == {"real.py"}


def test_redefined_functions_get_distinct_ids(tmp_path):
    b = RepoBuilder(tmp_path / "dup")
    b.write("m.py", "def f():\n    return 1\n\ndef f():\n    return 2\n").commit("dup")
    ids_ = [r["id"] for r in extract_code(GitRepo(b.path), "dup").tables["Function"]]
    assert ids_ == ["fn:dup:m.py:f", "fn:dup:m.py:f()@2"]


OVERLOADED = """from typing import overload


@overload
def chunks(data: bytes) -> list[bytes]: ...
@overload
def chunks(data: str) -> list[str]: ...
def chunks(data):
    \"\"\"Split data in two.\"\"\"
    return [data[:1], data[1:]]
"""


def test_an_overloaded_function_is_named_for_its_implementation(tmp_path):
    """`where is chunks defined` and its history mean the body, not the typing stubs above it."""
    b = RepoBuilder(tmp_path / "ov")
    b.write("m.py", OVERLOADED).commit("overloads")
    rows = {r["id"]: (r["line_start"], r["line_end"]) for r in extract_code(GitRepo(b.path), "ov").tables["Function"]}
    assert rows == {"fn:ov:m.py:chunks(bytes)": (5, 5), "fn:ov:m.py:chunks(str)": (7, 7), "fn:ov:m.py:chunks": (8, 10)}
