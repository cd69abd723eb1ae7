"""SZZ details: renames and moved lines followed, merges and large commits skipped, diff parsing."""

from ltm.bugs.diffs import commit_diffs, is_doc_path
from ltm.bugs.szz import _ranges, analyze_fixes, blame_lines, is_blameable, newest_in_spans
from ltm.extract.gitrepo import GitRepo
from tests.builder import BASE_TIME, RepoBuilder

HELPER = '''def helper(values):
    running_total = 0
    for value in values:
        running_total = running_total + value * 2
    return running_total
'''
# -M follows a moved block with 20 alphanumeric characters in the blamed range: the buggy line has 29.

MAIN = "def main(argv):\n" + "".join(f'    print("step {i} of the run with", len(argv), "arguments")\n' for i in range(12)) + "    return 0\n"


def _run(b: RepoBuilder, sha: str, **kw):
    repo = GitRepo(b.path)
    [res] = list(analyze_fixes(repo, "r", commit_diffs(repo, [sha]), **kw))
    return res


def test_a_bug_in_a_renamed_file_is_traced_to_the_commit_that_wrote_the_line(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("calc.py", HELPER)
    b.commit("Add helper")
    b.write("calc.py", HELPER.replace("value * 2", "value * 3"))
    intro = b.commit("Triple the values")
    b.git("mv", "calc.py", "maths.py")
    b.commit("Rename calc to maths")
    b.write("maths.py", HELPER)
    fix = b.commit("Fix the factor, fixes #4")
    res = _run(b, fix)
    assert res.introducing == {intro}
    [cand] = res.candidates
    assert cand.entity.id == "fn:r:maths.py:helper" and cand.path == "calc.py"


def test_moved_lines_are_traced_past_the_move(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("app.py", MAIN + "\n\n" + HELPER)
    b.commit("Add main and helper")
    buggy = HELPER.replace("value * 2", "value * 3")
    b.write("app.py", MAIN + "\n\n" + buggy)
    intro = b.commit("Triple the values")
    b.write("app.py", buggy + "\n\n" + MAIN)
    b.commit("Put the helper first")  # git sees the short helper move, not the long main
    b.write("app.py", HELPER + "\n\n" + MAIN)
    fix = b.commit("Fix the factor, fixes #5")
    assert _run(b, fix).introducing == {intro}


def test_merges_and_very_large_commits_are_not_blamed(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("a.py", HELPER)
    b.commit("Add helper")
    for i in range(3):
        b.write(f"m{i}.py", f"X = {i}\n")
    big = b.commit("Fix constants everywhere")
    b.checkout("-b", "side")
    b.write("a.py", HELPER.replace("* 2", "* 4"))
    b.commit("Quadruple")
    b.checkout("main")
    b.write("b.py", "Y = 1\n")
    b.commit("Add b")
    merge = b.merge("side", "Merge branch side, fixes #9")
    assert _run(b, big, max_files=2).skipped == "too_many_files"
    res = _run(b, merge)
    assert res.skipped == "merge" and res.candidates == []


def test_diff_parsing_keeps_old_line_numbers_renames_and_binary_files(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("a b.py", "one\ntwo\nthree\n").write("img.bin", b"\0\1\2")
    b.commit("Add")
    b.write("a b.py", "one\nTWO\nthree\nfour\n").write("img.bin", b"\0\1\3")
    sha = b.commit("Change")
    [diff] = list(commit_diffs(GitRepo(b.path), [sha]))
    files = {f.path: f for f in diff.files}
    assert files["img.bin"].binary
    h = files["a b.py"].hunks
    assert [(x.deleted, x.added) for x in h] == [([(2, "two")], [(2, "TWO")]), ([], [(4, "four")])]


def test_line_runs_blank_and_comment_lines_and_doc_paths():
    assert _ranges([9, 3, 4, 5, 4]) == [(3, 5), (9, 9)]
    assert not is_blameable("   ") and not is_blameable("  # why") and not is_blameable('"""Doc."""')
    assert is_blameable("return x  # trailing comment")
    assert is_doc_path("docs/index.rst") and is_doc_path("README") and is_doc_path("HISTORY.md")
    assert not is_doc_path("src/docstring_parser.py")


def _tree_state(path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def _bug_and_fix(path) -> tuple[RepoBuilder, str, str]:
    """A helper, the commit that broke it, the commit that fixed it."""
    b = RepoBuilder(path)
    b.write("calc.py", HELPER)
    b.commit("Add helper")
    b.write("calc.py", HELPER.replace("value * 2", "value * 3"))
    intro = b.commit("Triple the values")
    b.write("calc.py", HELPER)
    return b, intro, b.commit("Fix the factor, fixes #4")


def test_a_commit_graph_kept_outside_the_repository_gives_the_same_candidates(tmp_path):
    b, intro, fix = _bug_and_fix(tmp_path / "r")
    before = _tree_state(b.path / ".git")
    repo = GitRepo(b.path)
    objects = tmp_path / "home" / "cache" / "commit-graph" / "r" / "objects"
    assert repo.use_commit_graph(objects)
    assert (objects / "info" / "commit-graph").stat().st_size > 0
    [res] = list(analyze_fixes(repo, "r", commit_diffs(repo, [fix])))
    assert res.introducing == {intro}
    assert _run(b, fix).introducing == {intro}  # the same without the graph
    assert _tree_state(b.path / ".git") == before  # nothing written into the mined repository


def test_a_shallow_clone_gets_no_commit_graph_and_is_still_blamed(tmp_path):
    b, intro, _ = _bug_and_fix(tmp_path / "r")
    shallow = tmp_path / "shallow"
    b.git("clone", "-q", "--depth", "2", f"file://{b.path}", str(shallow))
    repo = GitRepo(shallow)
    assert not repo.use_commit_graph(tmp_path / "home" / "objects")
    assert repo.env is None
    fix = repo.head()
    [res] = list(analyze_fixes(repo, "r", commit_diffs(repo, [fix])))
    assert res.introducing == {intro}  # the shallow clone's boundary commit wrote the buggy line


def test_the_commit_graph_has_changed_path_filters_and_renamed_files_are_blamed_as_without_it(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("calc.py", HELPER).write("other.py", "x = 1\n")
    b.commit("Add helper")
    b.write("calc.py", HELPER.replace("value * 2", "value * 3"))
    intro = b.commit("Triple the values")
    for n in range(3):  # commits that do not touch the blamed path: the filters let blame skip them
        b.write("other.py", f"x = {n + 2}\n")
        b.commit(f"Other {n}")
    b.git("mv", "calc.py", "maths.py")
    b.commit("Rename calc to maths")
    b.write("maths.py", HELPER)
    fix = b.commit("Fix the factor, fixes #4")
    plain = _run(b, fix)
    repo = GitRepo(b.path)
    objects = tmp_path / "home" / "objects"
    assert repo.use_commit_graph(objects)
    assert b"BDAT" in (objects / "info" / "commit-graph").read_bytes()  # the Bloom filter chunk
    [graphed] = list(analyze_fixes(repo, "r", commit_diffs(repo, [fix])))
    assert graphed.introducing == plain.introducing == {intro}
    assert [(c.sha, c.path, c.lines) for c in graphed.candidates] == [(intro, "calc.py", 1)]


def test_a_memo_of_one_file_version_gives_the_same_results_as_a_large_one(tmp_path, monkeypatch):
    import ltm.bugs.szz as szz

    b = RepoBuilder(tmp_path / "r")
    b.write("calc.py", HELPER).write("app.py", MAIN)
    b.commit("Add helper and main")
    b.write("calc.py", HELPER.replace("value * 2", "value * 3")).write("app.py", MAIN.replace("return 0", "return 1"))
    intro = b.commit("Triple the values, exit 1")
    fixes = []
    b.write("calc.py", HELPER)
    fixes.append(b.commit("Fix the factor, fixes #4"))
    b.write("app.py", MAIN)
    fixes.append(b.commit("Exit 0 again, fixes #5"))
    repo = GitRepo(b.path)

    def results():
        return [(r.sha, sorted(r.affected), sorted((c.sha, c.path, c.entity.id if c.entity else None, c.lines)
                                                   for c in r.candidates))
                for r in analyze_fixes(repo, "r", commit_diffs(repo, fixes))]

    wide = results()
    monkeypatch.setattr(szz, "MEMO_VERSIONS", 1)  # every lookup of another file version evicts the last
    assert results() == wide
    assert [c[0] for _, _, cands in wide for c in cands] == [intro, intro]
    assert [a for _, a, _ in wide] == [["fn:r:calc.py:helper"], ["fn:r:app.py:main"]]


PARCEL = '''class Parcel:
    weight_limit = 20

    def route(self, stops):
        ordered = sorted(stops)
        return ordered

    def label(self):
        return "parcel"
'''


def test_an_add_only_fix_takes_the_newest_commit_of_each_enclosing_function_as_full_blame_does(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("parcel.py", PARCEL)
    b.commit("Add parcels")
    b.write("parcel.py", PARCEL.replace("sorted(stops)", "sorted(stops, reverse=True)"))
    route_change = b.commit("Reverse the route")
    # the same committer time as the next commit: the higher sha wins, as in a full blame
    b.write("parcel.py", b.path.joinpath("parcel.py").read_text().replace('"parcel"', '"box"'))
    label_a = b.commit("Rename the label", when=BASE_TIME + 3600 * 50)
    b.write("parcel.py", b.path.joinpath("parcel.py").read_text().replace("weight_limit = 20", "weight_limit = 25"))
    label_b = b.commit("Raise the weight limit", when=BASE_TIME + 3600 * 50)
    b.write("other.py", "def unrelated():\n    return 1\n")
    b.commit("Add an unrelated module")
    text = b.path.joinpath("parcel.py").read_text()
    text = text.replace("        return ordered\n", "        ordered = [s for s in ordered if s]\n        return ordered\n")
    b.write("parcel.py", text)
    fix = b.commit("Fix empty stops in the route, fixes #9")
    res = _run(b, fix, affects=True)
    by_entity = {c.entity.qualified_name: c for c in res.candidates}
    assert {c.method for c in res.candidates} == {"function_history"}
    assert by_entity["Parcel.route"].sha == route_change

    # what a blame of every line of the enclosing function says, for the same fix
    repo = GitRepo(b.path)
    parent = b.git("rev-parse", f"{fix}^")
    route = by_entity["Parcel.route"].entity
    whole = blame_lines(repo, parent, "parcel.py", range(route.line_start, route.line_end + 1))
    assert max(whole.values(), key=lambda x: (x.committed_at, x.sha)).sha == route_change
    spans = [(1, 9), (route.line_start, route.line_end)]  # the class holds the method: overlapping spans
    newest = newest_in_spans(repo, parent, "parcel.py", spans)
    whole_class = blame_lines(repo, parent, "parcel.py", range(1, 10))
    expected = max(whole_class.values(), key=lambda x: (x.committed_at, x.sha)).sha
    assert expected == max(label_a, label_b)
    assert {x.sha for x in newest.values()} == {expected, route_change}


SHOP = '''import os

class Cart:
    limit = 3

    def total(self, items):
        def price(item):
            return item.cost * 2
        return sum(price(i) for i in items)

    discount = 0.1

    def empty(self):
        return not self.items
'''


def test_a_fix_affects_the_innermost_definition_of_each_changed_line(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    b.write("shop.py", SHOP)
    b.commit("Add the cart")
    changed = (SHOP.replace("import os", "import sys").replace("limit = 3", "limit = 4")
               .replace("item.cost * 2", "item.cost").replace("for i in items)", "for i in items or ())")
               .replace("discount = 0.1", "discount = 0.2"))
    b.write("shop.py", changed)
    res = _run(b, b.commit("Fix prices, fixes #7"))
    # the import is in no definition; a class attribute after a method is the class's, not the method's;
    # the return after a nested function is the outer function's
    assert sorted(res.affected) == ["cls:r:shop.py:Cart", "fn:r:shop.py:Cart.total", "fn:r:shop.py:Cart.total.price"]
