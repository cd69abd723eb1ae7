"""The bugs stage on fixture histories: FIXES, AFFECTS and SZZ's INTRODUCED_BY, end to end."""

import json
from datetime import datetime, timezone

import pyarrow.parquet as pq
import pytest

from ltm.stages import bugs as bugs_stage
from ltm.stages.bugs import forward_pass_wins, stage_bugs
from ltm.errors import IssueExportError
from ltm.lake import Lake
from ltm.stages.history import stage_history
from tests.builder import BASE_TIME, RepoBuilder

AUTH_V1 = '''def validate(token, secret):
    """True when the token matches."""
    if token is None:
        return False
    return token.strip() == secret


def parse(header):
    scheme, _, token = header.partition(" ")
    return scheme, token
'''

# Commit B: the bug. Tokens with surrounding blanks are refused now.
AUTH_V2 = AUTH_V1.replace("return token.strip() == secret", "return token == secret")

# Commit D, the fix of #12: strip again, and say so in a comment (a comment is never blamed).
AUTH_V3 = AUTH_V1.replace("    return token.strip() == secret", "    # Headers may carry blanks.\n    return token.strip() == secret")

CONFIG_V1 = '''import json


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data["settings"]
'''

CONFIG_V2 = CONFIG_V1.replace('    return data["settings"]\n', '    return data.get("settings", {})\n')
# The add-only fix: one guard line, nothing deleted.
CONFIG_V3 = CONFIG_V2.replace("    with open(path) as f:\n", "    if path is None:\n        return {}\n    with open(path) as f:\n")

CACHE = '''def cached(key, store):
    return store.get(key)
'''


def _history(path):
    b = RepoBuilder(path)
    shas = {}
    b.write("app/auth.py", AUTH_V1).write("app/config.py", CONFIG_V1).write("README.md", "# app\n")
    shas["A"] = b.commit("Initial version")
    b.write("app/auth.py", AUTH_V2)
    shas["B"] = b.commit("Simplify token validation")
    b.write("app/auth.py", AUTH_V2.replace('return scheme, token', 'return scheme.lower(), token'))
    shas["C"] = b.commit("Use a common prefix for schemes")  # not a fix: `prefix`
    b.write("app/auth.py", AUTH_V3.replace('return scheme, token', 'return scheme.lower(), token'))
    shas["D"] = b.commit("Handle empty tokens again\n\nfixes #12")
    b.write("app/config.py", CONFIG_V2)
    shas["E"] = b.commit("Read settings with a default")
    b.write("app/config.py", CONFIG_V3)
    shas["F"] = b.commit("Fix crash when no config path is given")
    b.write("app/cache.py", CACHE)
    shas["G"] = b.commit("Add a cache helper")
    b.git("revert", "--no-edit", shas["G"], env={
        "GIT_AUTHOR_NAME": "Ada Lovelace", "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_AUTHOR_DATE": f"{BASE_TIME + 3600 * 20} +0000",
        "GIT_COMMITTER_NAME": "Ada Lovelace", "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_COMMITTER_DATE": f"{BASE_TIME + 3600 * 20} +0000",
    })
    shas["H"] = b.head()
    b.write("README.md", "# app\n\nThe app validates tokens.\n")
    shas["I"] = b.commit("fix typo in docs")
    b.write("app/auth.py", AUTH_V3.replace('return scheme.lower(), token', 'return scheme.lower(), token.strip()'))
    shas["J"] = b.commit(f"Strip tokens in parse\n\nFixes: {shas['C'][:10]} (\"Use a common prefix for schemes\")")
    return b, shas


@pytest.fixture
def history(tmp_path):
    b, shas = _history(tmp_path / "repo")
    lake = Lake(tmp_path / "lake")
    stage_history(b.path, "app", lake)
    return b, shas, lake


def _rows(lake, table):
    return lake.read(table, "app").to_pylist()


def _bug(lake, ref):
    return {r["ref"]: r for r in _rows(lake, "Bug")}[ref]


def test_bug_introduced_in_b_and_fixed_in_d_is_found_with_its_function(history):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    bug = _bug(lake, "#12")
    assert bug["id"] == "bug:app:#12" and bug["evidence"] == "closing_ref"
    fixes = [r for r in _rows(lake, "FIXES") if r["dst"] == "bug:app:#12"]
    assert [(r["src"], r["confidence"]) for r in fixes] == [(f"commit:app:{shas['D']}", 0.9)]
    assert "fixes #12" in fixes[0]["evidence"]
    affects = {r["dst"] for r in _rows(lake, "AFFECTS") if r["src"] == "bug:app:#12"}
    assert affects == {"fn:app:app/auth.py:validate"}
    intro = [r for r in _rows(lake, "INTRODUCED_BY") if r["src"] == "bug:app:#12"]
    assert [(r["dst"], r["function_id"], r["method"], r["blamed_lines"]) for r in intro] == [
        (f"commit:app:{shas['B']}", "fn:app:app/auth.py:validate", "blame", 1),
    ]


def test_add_only_fix_falls_back_to_the_last_change_of_the_enclosing_function(history):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    [bug] = [r for r in _rows(lake, "Bug") if r["title"] == "Fix crash when no config path is given"]
    assert bug["evidence"] == "keyword" and bug["ref"] == f"fix:{shas['F'][:12]}"
    affects = {r["dst"] for r in _rows(lake, "AFFECTS") if r["src"] == bug["id"]}
    assert affects == {"fn:app:app/config.py:load"}
    intro = [r for r in _rows(lake, "INTRODUCED_BY") if r["src"] == bug["id"]]
    assert [(r["dst"], r["method"], r["function_name"]) for r in intro] == [
        (f"commit:app:{shas['E']}", "function_history", "load")
    ]


def test_revert_makes_the_reverted_commit_the_introducing_one(history):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    bug = _bug(lake, f"revert:{shas['G'][:12]}")
    assert bug["evidence"] == "revert"
    intro = [r for r in _rows(lake, "INTRODUCED_BY") if r["src"] == bug["id"]]
    assert [(r["dst"], r["method"]) for r in intro] == [(f"commit:app:{shas['G']}", "revert")]
    affects = {r["dst"] for r in _rows(lake, "AFFECTS") if r["src"] == bug["id"]}
    assert affects == {"fn:app:app/cache.py:cached"}


def test_prefix_and_docs_typo_commits_are_not_fixes(history):
    b, shas, lake = history
    stats = stage_bugs(b.path, "app", lake)
    fixing = {r["src"] for r in _rows(lake, "FIXES")}
    assert f"commit:app:{shas['C']}" not in fixing
    assert f"commit:app:{shas['I']}" not in fixing
    assert len(_rows(lake, "Bug")) == 4  # #12, the add-only fix, the revert, the Fixes: trailer


def test_fixes_trailer_names_the_introducing_commit_directly(history):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    bug = _bug(lake, f"intro:{shas['C'][:10]}")
    assert bug["evidence"] == "fixes_trailer" and bug["confidence"] == 0.95
    intro = [(r["dst"], r["method"]) for r in _rows(lake, "INTRODUCED_BY") if r["src"] == bug["id"]]
    assert intro == [(f"commit:app:{shas['C']}", "fixes_trailer")]
    assert {r["dst"] for r in _rows(lake, "AFFECTS") if r["src"] == bug["id"]} == {"fn:app:app/auth.py:parse"}


def test_defect_signals_count_fixes_and_introduced_bugs_per_function(history):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    signals = {r["id"]: r for r in _rows(lake, "FunctionDefects")}
    assert signals["fn:app:app/auth.py:validate"]["fix_count"] == 1
    assert signals["fn:app:app/auth.py:validate"]["bugs_introduced"] == 1
    assert signals["fn:app:app/config.py:load"]["fix_count"] == 1
    assert signals["fn:app:app/auth.py:parse"]["fix_count"] == 1  # J, whose trailer names C directly
    assert signals["fn:app:app/auth.py:parse"]["bugs_introduced"] == 0
    assert "fn:app:app/cache.py:cached" in signals and "fn:app:app/auth.py:nonexistent" not in signals



def test_defect_signals_read_modifies_a_batch_at_a_time_with_the_same_rows(history, tmp_path, monkeypatch):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    whole = sorted(_rows(lake, "FunctionDefects"), key=lambda r: r["id"])
    scan, sizes = Lake.scan, []

    def one_row_at_a_time(self, table, repo, columns, batch_rows=1):
        for batch in scan(self, table, repo, columns, batch_rows=1):
            sizes.append((table, batch.num_rows))
            yield batch

    monkeypatch.setattr(Lake, "scan", one_row_at_a_time)
    stage_bugs(b.path, "app", lake)
    modifies = lake.read("MODIFIES", "app").num_rows
    assert sizes == [("MODIFIES", 1)] * modifies and modifies > 10
    assert sorted(_rows(lake, "FunctionDefects"), key=lambda r: r["id"]) == whole
    assert any(r["churn"] > 0 for r in whole)


def test_rows_written_in_small_batches_equal_one_batch(history, tmp_path):
    b, shas, lake = history
    stage_bugs(b.path, "app", lake)
    tables = ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY", "FunctionDefects", "szz_fixes")
    whole = {t: _rows(lake, t) for t in tables}
    stats = stage_bugs(b.path, "app", lake, full=True, batch_rows=1)
    for t in tables:
        assert _rows(lake, t) == whole[t], t
        assert stats.rows[t] == len(whole[t])
    # One row at a time: a row group per row, so no table was held whole before it was written.
    for t in ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY", "szz_fixes"):
        groups = sum(pq.ParquetFile(f).metadata.num_row_groups for f in lake.files(t, "app"))
        assert groups == len(whole[t]) > 1, t

def _export(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_issue_export_gives_titles_drops_features_and_late_candidates(history, tmp_path):
    b, shas, lake = history
    # #12 was reported before A was committed: no commit of this history can have introduced it.
    early = datetime.fromtimestamp(BASE_TIME, timezone.utc).isoformat().replace("+00:00", "Z")
    path = _export(tmp_path / "issues.jsonl", [
        json.dumps({"number": 12, "title": "Empty token accepted", "body": "An empty token logs in.",
                    "labels": [{"name": "bug"}], "state": "closed", "created_at": early,
                    "closed_at": "2023-11-16T00:00:00Z"}),
    ])
    stats = stage_bugs(b.path, "app", lake, issues_path=path)
    bug = _bug(lake, "#12")
    assert bug["title"] == "Empty token accepted" and bug["kind"] == "bug" and bug["labels"] == ["bug"]
    assert bug["reported_at"] == datetime.fromtimestamp(BASE_TIME, timezone.utc)
    assert "An empty token logs in." in bug["text"]
    assert [r for r in _rows(lake, "INTRODUCED_BY") if r["src"] == "bug:app:#12"] == []
    assert stats.counts["dropped_after_report"] >= 1


def test_malformed_issue_export_reports_bad_lines_by_number_and_loads_the_rest(history, tmp_path):
    b, shas, lake = history
    path = _export(tmp_path / "issues.jsonl", [
        json.dumps({"number": 12, "title": "Empty token accepted", "labels": ["bug"]}),
        "{not json",
        json.dumps({"number": "twelve", "title": "bad number"}),
        json.dumps({"number": 5, "title": "bad date", "created_at": "yesterday"}),
    ])
    stats = stage_bugs(b.path, "app", lake, issues_path=path)
    assert [n for n, _ in stats.bad_issue_lines] == [2, 3, 4]
    assert "twelve" in stats.bad_issue_lines[1][1]
    assert stats.issues_loaded == 1
    assert _bug(lake, "#12")["title"] == "Empty token accepted"


def test_a_closing_ref_to_a_feature_issue_is_not_a_bug(tmp_path):
    b = RepoBuilder(tmp_path / "repo")
    b.write("a.py", "def f():\n    return 1\n")
    b.commit("Initial")
    b.write("a.py", "def f():\n    return 2\n")
    b.commit("Return two, closes #13")
    lake = Lake(tmp_path / "lake")
    stage_history(b.path, "r", lake)
    path = _export(tmp_path / "i.jsonl", [json.dumps({"number": 13, "title": "Return two", "labels": ["enhancement"]})])
    stats = stage_bugs(b.path, "r", lake, issues_path=path)
    assert lake.read("Bug", "r").num_rows == 0
    assert stats.counts["feature_refs"] == 1


def test_missing_issue_export_is_a_clear_error_and_writes_nothing(history, tmp_path):
    b, shas, lake = history
    with pytest.raises(IssueExportError, match="nope.jsonl"):
        stage_bugs(b.path, "app", lake, issues_path=str(tmp_path / "nope.jsonl"))
    assert lake.read("Bug", "app").num_rows == 0


@pytest.mark.parametrize("method", ["blame", "forward_pass"])
def test_the_stage_keeps_its_commit_graph_in_the_home_and_writes_nothing_into_the_repository(
    history, tmp_path, monkeypatch, method
):
    b, shas, lake = history
    if method == "blame":  # as an incremental run with few new fixes
        monkeypatch.setattr(bugs_stage, "COMMITS_PER_FIX", 0)
    git_dir = b.path / ".git"
    before = {p: p.read_bytes() for p in git_dir.rglob("*") if p.is_file()}
    stage_bugs(b.path, "app", lake, cache_dir=tmp_path / "cache")
    graph = tmp_path / "cache" / "commit-graph" / "app" / "objects" / "info" / "commit-graph"
    assert graph.is_file() == (method == "blame")  # only blame walks history many times over
    assert {p: p.read_bytes() for p in git_dir.rglob("*") if p.is_file()} == before
    intro = {r["dst"] for r in _rows(lake, "INTRODUCED_BY") if r["src"] == "bug:app:#12"}
    assert intro == {f"commit:app:{shas['B']}"}


@pytest.mark.parametrize("name, path", [
    (b"app/caf\xe9.py", "app/caf\\xe9.py"),  # Latin-1, not UTF-8 (bat: `test-invalid-utf8-\xc3(.rs`)
    ('app/say "hi"\tback\\slash.py', 'app/say "hi"\tback\\slash.py'),  # git C-quotes it in its output
])
def test_a_fix_in_a_file_with_an_odd_name_is_blamed_with_the_history_stages_path_and_ids(tmp_path, name, path):
    """Such a fix must not stop the stage, and its rows must name the file and function as the history
    stage does (the bytes git gave, undecodable ones as `\\xe9`; never git's quoted form)."""
    b = RepoBuilder(tmp_path / "repo")
    b.write(name, AUTH_V1)
    b.commit("Initial version")
    b.write(name, AUTH_V2)
    bad = b.commit("Simplify token validation")
    b.write(name, AUTH_V1)
    b.commit("Handle blank tokens again\n\nfixes #7")
    lake = Lake(tmp_path / "lake")
    stage_history(b.path, "app", lake)
    stage_bugs(b.path, "app", lake)

    assert {r["path"] for r in _rows(lake, "file_changes")} == {path}
    history_ids = {r["dst"] for r in _rows(lake, "MODIFIES")}
    intro = [r for r in _rows(lake, "INTRODUCED_BY") if r["src"] == "bug:app:#7"]
    assert [(r["dst"], r["method"], r["file_path"]) for r in intro] == [(f"commit:app:{bad}", "blame", path)]
    assert intro[0]["function_id"] == f"fn:app:{path}:validate" and intro[0]["function_id"] in history_ids
    affects = {r["dst"] for r in _rows(lake, "AFFECTS") if r["src"] == "bug:app:#7"}
    assert affects == {intro[0]["function_id"]}


def test_the_forward_pass_and_blame_give_the_same_rows(history, tmp_path, monkeypatch):
    b, shas, lake = history
    assert forward_pass_wins(3, 6) and not forward_pass_wins(3, 1000) and not forward_pass_wins(0, 0)
    stage_bugs(b.path, "app", lake, full=True)
    by_pass = {t: sorted(map(str, _rows(lake, t))) for t in ("INTRODUCED_BY", "AFFECTS", "FunctionDefects")}
    monkeypatch.setattr(bugs_stage, "COMMITS_PER_FIX", 0)
    stage_bugs(b.path, "app", lake, full=True)
    assert {t: sorted(map(str, _rows(lake, t))) for t in by_pass} == by_pass
    assert any(r["method"] == "function_history" for r in _rows(lake, "INTRODUCED_BY"))


@pytest.mark.parametrize("method", ["blame", "forward_pass"])
def test_a_rewrite_that_closes_an_issue_names_no_affected_function_and_no_introducing_commit(
    tmp_path, monkeypatch, method
):
    """A fix that changes more of the package's functions than `MAX_DEFINITIONS` is a rewrite: its bug and
    FIXES edge stay, but listing every function it touched as affected, and every commit behind them as
    introducing the bug, would put the bug on each of those functions. A small fix in the same history is
    still blamed, and so is one that adds many test functions beside a one-line change."""
    if method == "blame":
        monkeypatch.setattr(bugs_stage, "COMMITS_PER_FIX", 0)
    many = bugs_stage.MAX_DEFINITIONS + 5
    b = RepoBuilder(tmp_path / "repo")
    b.write("app/handlers.py", "".join(f"def handle_{i}(event):\n    return event.get('v{i}')\n\n\n" for i in range(many)))
    b.write("app/auth.py", AUTH_V1)
    b.commit("Add the handlers and auth")
    b.write("app/auth.py", AUTH_V2)
    bad = b.commit("Simplify token validation")
    b.write("app/handlers.py", "".join(f"def handle_{i}(event):\n    return event.get('v{i}', None)\n\n\n"
                                       for i in range(many)))
    b.commit("Rewrite every handler to tolerate missing keys\n\nFixes #30")
    b.write("app/auth.py", AUTH_V1)
    b.commit("Strip tokens again\n\nFixes #31")
    b.write("app/auth.py", AUTH_V1.replace("return scheme, token", "return scheme.lower(), token"))
    b.write("tests/test_auth.py", "".join(f"def test_scheme_{i}():\n    assert parse('B{i} t')[0] == 'b{i}'\n\n\n"
                                          for i in range(many)))
    b.commit("Compare schemes in lower case, with a test per scheme\n\nFixes #32")
    lake = Lake(tmp_path / "lake")
    stage_history(b.path, "r", lake)
    stats = stage_bugs(b.path, "r", lake)
    assert {r["ref"] for r in lake.read("Bug", "r").to_pylist()} == {"#30", "#31", "#32"}
    assert {r["dst"] for r in lake.read("FIXES", "r").to_pylist()} == {"bug:r:#30", "bug:r:#31", "bug:r:#32"}
    affects = {(r["src"], r["dst"]) for r in lake.read("AFFECTS", "r").to_pylist()}
    assert not any(src == "bug:r:#30" for src, _ in affects)
    assert ("bug:r:#31", "fn:r:app/auth.py:validate") in affects
    assert ("bug:r:#32", "fn:r:app/auth.py:parse") in affects
    intro = {(r["src"], r["dst"]) for r in lake.read("INTRODUCED_BY", "r").to_pylist()}
    assert not any(src == "bug:r:#30" for src, _ in intro)
    assert ("bug:r:#31", f"commit:r:{bad}") in intro and any(src == "bug:r:#32" for src, _ in intro)
    assert stats.counts["skipped_too_many_definitions"] == 1
