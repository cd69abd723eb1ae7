"""History mining: per-file changes, function-level MODIFIES and renames on real fixture repositories."""

from ltm.extract.history.changes import unquote_path
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import mine_history, skip_matcher
from ltm.extract.history.spans import SpanCache
from tests.builder import RepoBuilder

CORE_V1 = '''def alpha():
    return 1


def beta():
    return 2


class Box:
    def open(self):
        return "open"
'''

# c2: beta's body changes (line 6).
CORE_V2 = CORE_V1.replace("return 2", "return 3")
# c3: alpha (lines 1-4) goes, gamma is appended.
CORE_V3 = CORE_V2.replace('def alpha():\n    return 1\n\n\n', "") + '\n\ndef gamma():\n    return "g"\n'
# c5 (after the file moved to app/engine.py): beta is renamed to delta, body unchanged.
CORE_V5 = CORE_V3.replace("def beta():", "def delta():")


def history_repo(tmp_path) -> tuple[RepoBuilder, dict[str, str]]:
    b = RepoBuilder(tmp_path / "hist")
    shas = {}
    b.write("app/core.py", CORE_V1).write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x01\x02").write("notes.txt", "n\n")
    shas["c1"] = b.commit("Add core")
    b.write("app/core.py", CORE_V2).write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x09\x09\x09")
    shas["c2"] = b.commit("fix: beta returns three")
    b.write("app/core.py", CORE_V3)
    shas["c3"] = b.commit("Remove alpha, add gamma")
    b.git("mv", "app/core.py", "app/engine.py")
    shas["c4"] = b.commit("Move core to engine")
    b.write("app/engine.py", CORE_V5)
    shas["c5"] = b.commit("Rename beta to delta")
    b.delete("notes.txt")
    shas["c6"] = b.commit("Drop notes")
    return b, shas


def mine(b: RepoBuilder, key: str = "h", **kw):
    return mine_history(GitRepo(b.path), key, "HEAD", cache=SpanCache(None), **kw)


def _mods(out, sha):
    return {
        (m["dst"], m["change_kind"], m["lines_added"], m["lines_deleted"])
        for m in out.modifies if m["src"] == f"commit:h:{sha}" and m["dst_label"] != "File"
    }


def test_file_changes_kinds_paths_lines_and_binary(tmp_path):
    b, s = history_repo(tmp_path)
    out = mine(b)
    assert [c["message"] for c in out.commits][0] == "Drop notes"
    fc = {(r["sha"], r["path"]): r for r in out.file_changes}
    assert fc[(s["c1"], "app/core.py")]["change_kind"] == "added"
    assert fc[(s["c1"], "app/core.py")]["lines_added"] == 11
    beta = fc[(s["c2"], "app/core.py")]
    assert (beta["change_kind"], beta["lines_added"], beta["lines_deleted"]) == ("modified", 1, 1)
    assert beta["deleted_ranges"] == [{"start": 6, "count": 1}]
    logo = fc[(s["c2"], "logo.png")]
    assert logo["binary"] is True and logo["lines_added"] == 0
    moved = fc[(s["c4"], "app/engine.py")]
    assert (moved["change_kind"], moved["old_path"], moved["similarity"]) == ("renamed", "app/core.py", 100)
    gone = fc[(s["c6"], "notes.txt")]
    assert (gone["change_kind"], gone["new_path"], gone["new_blob"], gone["lines_deleted"]) == ("deleted", None, None, 1)


def test_functions_added_removed_modified_and_renamed(tmp_path):
    b, s = history_repo(tmp_path)
    out = mine(b)
    fn = "fn:h:app/core.py:"
    assert _mods(out, s["c1"]) == {
        (fn + "alpha", "added", 2, 0), (fn + "beta", "added", 2, 0),
        ("cls:h:app/core.py:Box", "added", 3, 0), (fn + "Box.open", "added", 2, 0),
    }
    assert _mods(out, s["c2"]) == {(fn + "beta", "modified", 1, 1)}
    assert _mods(out, s["c3"]) == {(fn + "alpha", "deleted", 0, 2), (fn + "gamma", "added", 2, 0)}
    assert _mods(out, s["c4"]) == set()  # a pure move changes no line
    eng = "fn:h:app/engine.py:"
    assert _mods(out, s["c5"]) == {(eng + "delta", "renamed", 1, 0), (eng + "beta", "deleted", 0, 1)}
    renames = {(r["src"], r["dst"]) for r in out.renamed_from}
    assert renames == {
        ("file:h:app/engine.py", "file:h:app/core.py"),
        (eng + "beta", fn + "beta"), (eng + "gamma", fn + "gamma"), (eng + "Box.open", fn + "Box.open"),
        ("cls:h:app/engine.py:Box", "cls:h:app/core.py:Box"),
        (eng + "delta", eng + "beta"),
    }
    seen = out.seen
    assert seen[fn + "alpha"].removed_in == s["c3"]
    assert seen[eng + "beta"].removed_in == s["c5"]
    assert seen[fn + "gamma"].removed_in == s["c4"]
    assert seen["file:h:notes.txt"].removed_in == s["c6"]
    assert seen[eng + "delta"].removed_in is None


UNITTEST = """class TestTemplates(unittest.TestCase):
    def test_filter(self):
        def index():
            return render("x")
        self.assertEqual(index(), "x")

    def test_global(self):
        self.assertTrue(True)
"""
PYTEST = """def test_filter():
    def index():
        return render("x")
    assert index() == "x"


def test_global():
    assert True
"""


def test_a_test_method_become_a_function_continues_the_method(tmp_path):
    """Rewritten from unittest to pytest in one commit (each body edited): `test_filter`'s history is the
    method's, and its inner `index` follows it; the class's other member is matched the same way."""
    b = RepoBuilder(tmp_path / "t")
    b.write("tests/test_t.py", UNITTEST)
    b.commit("unittest")
    b.write("tests/test_t.py", PYTEST)
    port = b.commit("Port the tests to pytest")
    out = mine(b, "h")
    p = "fn:h:tests/test_t.py:"
    assert {(r["src"], r["dst"]) for r in out.renamed_from} == {
        (p + "test_filter", p + "TestTemplates.test_filter"), (p + "test_filter.index", p + "TestTemplates.test_filter.index"),
        (p + "test_global", p + "TestTemplates.test_global"),
    }
    assert {d for d, kind, *_ in _mods(out, port) if kind == "renamed"} == {
        p + "test_filter", p + "test_filter.index", p + "test_global"}


KWARGS = """def merge_kwargs(local, default):
    if default is None:
        return local
    merged = dict(default)
    merged.update(local)
    return merged


def unrelated(x):
    return x


def test_binding_form():
    assert form()
"""
SETTING = """def merge_setting(request_setting, session_setting, dict_class=dict):
    if session_setting is None:
        return request_setting
    if request_setting is None:
        return session_setting
    merged = dict_class(session_setting)
    merged.update(request_setting)
    return merged


def other(x):
    return x + 1


def test_content_type():
    assert content_type()
"""


def test_a_function_rewritten_in_place_under_a_related_name_continues_the_old(tmp_path):
    """`merge_kwargs` rewritten as `merge_setting` over the same lines is one function's history; `unrelated`,
    replaced on its lines by `other` (no word of its name in common), is not, nor a test replaced by another
    (`test` says what kind of function, not which)."""
    b = RepoBuilder(tmp_path / "r")
    b.write("s.py", KWARGS)
    b.commit("merge_kwargs")
    b.write("s.py", SETTING)
    rewrite = b.commit("Refactor merge_kwargs for clarity")
    out = mine(b, "h")
    assert {(r["src"], r["dst"]) for r in out.renamed_from} == {("fn:h:s.py:merge_setting", "fn:h:s.py:merge_kwargs")}
    kinds = {d: kind for d, kind, *_ in _mods(out, rewrite)}
    assert kinds["fn:h:s.py:merge_setting"] == "renamed" and kinds["fn:h:s.py:other"] == "added"
    assert kinds["fn:h:s.py:test_content_type"] == "added"


def test_commit_kind_and_change_type_come_from_message_and_paths(tmp_path):
    b, s = history_repo(tmp_path)
    b.write("docs/guide.md", "# guide\n")
    doc = b.commit("Update guide")
    out = mine(b)
    kinds = {c["sha"]: c["kind"] for c in out.commits}
    assert kinds[s["c2"]] == "bugfix" and kinds[doc] == "docs"
    assert {m["change_type"] for m in out.modifies if m["src"] == f"commit:h:{s['c2']}"} == {"bugfix"}


def test_merge_is_diffed_against_its_first_parent(tmp_path):
    b = RepoBuilder(tmp_path / "m")
    b.write("a.py", "def one():\n    return 1\n").write("b.py", "def two():\n    return 2\n").commit("init")
    b.checkout("-b", "topic")
    b.write("b.py", "def two():\n    return 22\n")
    topic = b.commit("topic work")
    b.checkout("main")
    b.write("a.py", "def one():\n    return 11\n")
    main_work = b.commit("main work")
    merge = b.merge("topic", "Merge topic")
    out = mine(b, "m")
    assert len(out.commits) == 4
    by = {}
    for m in out.modifies:
        if m["dst_label"] == "Function":
            by.setdefault(m["src"], set()).add(m["dst"])
    assert by[f"commit:m:{merge}"] == {"fn:m:b.py:two"}  # what the merge brought into main
    assert by[f"commit:m:{topic}"] == {"fn:m:b.py:two"}
    assert by[f"commit:m:{main_work}"] == {"fn:m:a.py:one"}
    assert sorted(p for p, c in out.parents if c == merge) == sorted([main_work, topic])


def test_non_utf8_paths_and_contents(tmp_path):
    b = RepoBuilder(tmp_path / "u")
    b.write(b"caf\xe9.py", b"# caf\xe9\ndef f():\n    return '\xe9'\n").write('we"ird\tname.py', "def g():\n    pass\n")
    sha = b.commit("latin-1 file")
    out = mine(b, "u")
    paths = {r["path"] for r in out.file_changes}
    assert paths == {"caf\\xe9.py", 'we"ird\tname.py'}
    assert _mods_u(out, sha) == {"fn:u:caf\\xe9.py:f", 'fn:u:we"ird\tname.py:g'}


def _mods_u(out, sha):
    return {m["dst"] for m in out.modifies if m["src"] == f"commit:u:{sha}" and m["dst_label"] == "Function"}


def test_unquote_path_reverses_git_c_quoting():
    assert unquote_path(b'"we\\"ird\\tname.py"') == 'we"ird\tname.py'
    assert unquote_path(b'"caf\\303\\251.py"') == "café.py"
    assert unquote_path(b"plain/path.py") == "plain/path.py"


def test_skip_patterns_drop_vendored_and_minified_paths(tmp_path):
    b = RepoBuilder(tmp_path / "s")
    b.write("node_modules/x/index.js", "x\n").write("web/app.min.js", "y\n").write("src/vendor/lib.py", "z = 1\n")
    b.write("src/main.py", "def main():\n    pass\n").commit("init")
    out = mine(b, "s")
    assert {r["path"] for r in out.file_changes} == {"src/main.py"}
    assert out.skipped["skip_pattern"] == 3
    only_min = mine(b, "s", skip_patterns=["*.min.js"])
    assert {r["path"] for r in only_min.file_changes} == {"node_modules/x/index.js", "src/vendor/lib.py", "src/main.py"}
    m = skip_matcher(["dist/", "*.min.css"])
    assert m.match("pkg/dist/a.py") and m.match("a/b.min.css") and not m.match("distance.py")


def test_a_commit_touching_1000_files(tmp_path):
    b = RepoBuilder(tmp_path / "big")
    for i in range(1000):
        b.write(f"pkg/m{i:04d}.py", f"def f{i}():\n    return {i}\n")
    sha = b.commit("generate 1000 modules")
    out = mine(b, "big")
    assert len(out.file_changes) == 1000
    fns = {m["dst"] for m in out.modifies if m["dst_label"] == "Function"}
    assert len(fns) == 1000 and "fn:big:pkg/m0999.py:f999" in fns
    assert all(m["src"] == f"commit:big:{sha}" for m in out.modifies)


def test_bounds_since_and_max_commits(tmp_path):
    b, s = history_repo(tmp_path)
    newest_two = mine(b, max_commits=2)
    assert [c["sha"] for c in newest_two.commits] == [s["c6"], s["c5"]]
    # The builder's clock: commit n is at 1_700_000_000 + 3600 n; c5 is at +18000 s.
    recent = mine(b, since="@1700016000")
    assert [c["sha"] for c in recent.commits] == [s["c6"], s["c5"]]
