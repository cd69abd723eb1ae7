"""The forward pass's line origins against `git blame -w -M` on small real histories."""

from ltm.bugs.line_origins import LineOrigins
from ltm.bugs.szz import BLAME_FLAGS, Job, blame_lines
from ltm.extract.gitrepo import GitRepo
from tests.builder import RepoBuilder

LOAD = '''def load(path):
    with open(path) as handle:
        data = handle.read()
    return parse_settings(data)
'''

SAVE = '''def save(path, settings):
    with open(path, "w") as handle:
        handle.write(render_settings(settings))
'''


def _origins(b: RepoBuilder, path: str) -> dict[int, tuple[str, str]]:
    """Line -> (commit, path then) at HEAD, from the pass (asked through an empty commit on top)."""
    head = b.head()
    probe = b.commit("probe")
    lines = len((b.path / path).read_text().splitlines())
    pass_ = LineOrigins(GitRepo(b.path))
    [(sha, state)] = list((s, pass_.answer(st, Job(path, "", list(range(1, lines + 1))))) for s, st in pass_.run({probe}))
    blamed = blame_lines(GitRepo(b.path), head, path, range(1, lines + 1), BLAME_FLAGS)
    got = {n: (x.sha, x.path) for n, x in state.items()}
    assert got == {n: (x.sha, x.path) for n, x in blamed.items()}  # what `git blame -w -M` says, line for line
    return got


def test_a_modified_line_comes_from_the_commit_that_changed_it(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    a = b.write("app.py", LOAD).commit("load")
    m = b.write("app.py", LOAD.replace("handle.read()", "handle.read().strip()")).commit("strip")
    got = _origins(b, "app.py")
    assert [got[n][0] for n in (1, 2, 3, 4)] == [a, a, m, a]


def test_a_whitespace_only_change_keeps_the_older_origin(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    a = b.write("app.py", LOAD).commit("load")
    b.write("app.py", LOAD.replace("    return", "        return")).commit("reindent")
    m = b.write("app.py", LOAD.replace("    return", "        return").replace("load(path)", "load(path, mode)")).commit("mode")
    got = _origins(b, "app.py")
    assert [got[n][0] for n in (1, 2, 3, 4)] == [m, a, a, a]


def test_a_block_moved_within_the_file_keeps_its_origin(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    a = b.write("app.py", LOAD + "\n\n" + SAVE).commit("load and save")
    s = b.write("app.py", SAVE + "\n\n" + LOAD).commit("save first")
    got = _origins(b, "app.py")
    assert [got[n][0] for n in range(1, 10)] == [a, a, a, s, s, a, a, a, a]  # the blank lines between are new


def test_a_renamed_file_keeps_its_lines_origins_and_old_path(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    a = b.write("old/app.py", LOAD).commit("load")
    b.delete("old/app.py")
    r = b.write("new/app.py", LOAD.replace("handle.read()", "handle.read(4096)")).commit("move and chunk")
    got = _origins(b, "new/app.py")
    assert got[1] == (a, "old/app.py") and got[3] == (r, "new/app.py")


def test_a_merge_takes_each_sides_origins_and_its_own_for_a_resolution(tmp_path):
    b = RepoBuilder(tmp_path / "r")
    a = b.write("app.py", LOAD + "\n\n" + SAVE).commit("load and save")
    b.git("checkout", "-q", "-b", "feature")
    f = b.write("app.py", (LOAD + "\n\n" + SAVE).replace("handle.read()", "handle.read(4096)")).commit("chunk")
    b.checkout("main")
    c = b.write("app.py", (LOAD + "\n\n" + SAVE).replace('"w"', '"wb"')).commit("binary")
    who = {"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}
    b.git("merge", "-q", "--no-ff", "--no-commit", "feature", env=who)
    merged = (LOAD + "\n\n" + SAVE).replace("handle.read()", "handle.read(4096)").replace('"w"', '"wb"')
    m = b.write("app.py", merged.replace("parse_settings(data)", "parse_settings(data, strict=True)")).commit("merge")
    got = _origins(b, "app.py")
    assert (got[3][0], got[8][0], got[4][0], got[1][0]) == (f, c, m, a)


def test_the_pass_goes_on_past_a_version_git_cannot_read(tmp_path):
    """nlohmann/json's mirror lacks a blob: git's patch stopped at the commit that needed it, and every fix after
    it went to `git blame` one by one (984 fixes in 306 s). The pass now starts a new git process after that
    commit, and the lines of the files git could read keep their origins."""
    b = RepoBuilder(tmp_path / "r")
    a = b.write("app.py", LOAD).write("data.txt", "one\ntwo\n").commit("load and data")
    b.write("data.txt", "one\nTWO\n").commit("data two")
    m = b.write("app.py", LOAD.replace("handle.read()", "handle.read().strip()")).commit("strip")
    probe = b.commit("probe")
    lost = b.git("rev-parse", f"{a}:data.txt")  # the old side of "data two"'s diff
    (b.path / ".git" / "objects" / lost[:2] / lost[2:]).unlink()
    pass_ = LineOrigins(GitRepo(b.path))
    got = [(s, pass_.answer(st, Job("app.py", "", [1, 2, 3, 4]))) for s, st in pass_.run({probe})]
    assert [s for s, _ in got] == [probe]
    assert [got[0][1][n].sha for n in (1, 2, 3, 4)] == [a, a, m, a]
    assert pass_.counts["unreadable_commits"] == 2  # the commit that added the version, the one that changed it


def test_the_pass_goes_on_past_a_rename_whose_old_version_git_cannot_read(tmp_path):
    """Rename detection reads both versions before git prints the commit: git dies with nothing of that commit
    written, and the pass passes the commit by (without its changes) instead of stopping there."""
    b = RepoBuilder(tmp_path / "r")
    data = "".join(f"row {i} of the table of values\n" for i in range(20))
    a = b.write("app.py", LOAD).write("data.txt", data).commit("load and data")
    b.git("mv", "data.txt", "table.txt")
    b.write("table.txt", data + "one more row of the table\n").commit("rename the data")
    m = b.write("app.py", LOAD.replace("handle.read()", "handle.read().strip()")).commit("strip")
    probe = b.commit("probe")
    lost = b.git("rev-parse", f"{a}:data.txt")
    (b.path / ".git" / "objects" / lost[:2] / lost[2:]).unlink()
    pass_ = LineOrigins(GitRepo(b.path))
    got = [(s, pass_.answer(st, Job("app.py", "", [1, 2, 3, 4]))) for s, st in pass_.run({probe})]
    assert [s for s, _ in got] == [probe]
    assert [got[0][1][n].sha for n in (1, 2, 3, 4)] == [a, a, m, a]
