"""The bugs stage is incremental: SZZ results are kept per fix sha, only new fixes are blamed."""

import json
import logging
import shutil

from ltm.stages.bugs import stage_bugs
from ltm.lake import Lake
from ltm.stages.history import stage_history
from tests.stages.test_bugs import CONFIG_V3, _history

TABLES = ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY", "FunctionDefects")

# A later fix of #21: a negative timeout, written in E's line of `load`.
CONFIG_V4 = CONFIG_V3.replace('    return data.get("settings", {})\n', '    return data.get("settings") or {}\n')


def _rows(lake, table):
    return sorted(lake.read(table, "app").to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))


def _snapshot(lake):
    return {t: _rows(lake, t) for t in TABLES}


def _setup(tmp_path):
    b, shas = _history(tmp_path / "repo")
    lake = Lake(tmp_path / "lake")
    stage_history(b.path, "app", lake)
    first = stage_bugs(b.path, "app", lake)
    return b, shas, lake, first


def test_a_second_run_without_new_commits_blames_nothing_and_writes_the_same_rows(tmp_path):
    b, shas, lake, first = _setup(tmp_path)
    # D (#12), F (add-only), the revert H and J (trailer) carry fix evidence ("fix typo in docs" does not).
    assert (first.mode, first.fixes_blamed, first.fixes_reused) == ("full", 4, 0)
    before = _snapshot(lake)
    # With the repository's objects gone, any diff or blame would fail or find nothing: the
    # identical rows prove the second run took every SZZ result from the lake.
    shutil.rmtree(b.path / ".git" / "objects")
    (b.path / ".git" / "objects").mkdir()
    second = stage_bugs(b.path, "app", lake)
    assert (second.mode, second.fixes_blamed, second.fixes_reused) == ("up_to_date", 0, 4)
    assert _snapshot(lake) == before
    assert len(before["Bug"]) == 4


def test_new_fix_commits_are_blamed_and_added_to_the_earlier_bugs(tmp_path):
    b, shas, lake, _ = _setup(tmp_path)
    before = _snapshot(lake)
    b.write("app/config.py", CONFIG_V4)
    fix = b.commit("Treat empty settings as none, fixes #21")
    stage_history(b.path, "app", lake)
    st = stage_bugs(b.path, "app", lake)
    assert (st.mode, st.fixes_blamed, st.fixes_reused) == ("incremental", 1, 4)
    after = _snapshot(lake)
    assert [r for r in after["Bug"] if r["ref"] != "#21"] == before["Bug"]
    intro = [(r["dst"], r["function_name"], r["method"]) for r in after["INTRODUCED_BY"] if r["src"] == "bug:app:#21"]
    assert intro == [(f"commit:app:{shas['E']}", "load", "blame")]
    assert [r["src"] for r in after["FIXES"] if r["dst"] == "bug:app:#21"] == [f"commit:app:{fix}"]
    signals = {r["id"]: r for r in after["FunctionDefects"]}
    assert signals["fn:app:app/config.py:load"]["fix_count"] == 2  # F and the new fix
    assert lake.read("szz_fixes", "app").num_rows == 5


def test_an_issue_export_added_later_applies_to_kept_fixes_without_blaming(tmp_path):
    b, shas, lake, _ = _setup(tmp_path)
    issues = tmp_path / "issues.jsonl"
    issues.write_text(json.dumps({"number": 12, "title": "Padded tokens refused", "labels": ["bug"]}) + "\n")
    st = stage_bugs(b.path, "app", lake, issues_path=str(issues))
    assert st.fixes_blamed == 0
    assert {r["ref"]: r["title"] for r in _rows(lake, "Bug")}["#12"] == "Padded tokens refused"


def test_a_rewritten_history_derives_every_fix_again(tmp_path, caplog):
    b, shas, lake, _ = _setup(tmp_path)
    b.git("reset", "-q", "--hard", shas["H"])  # drops the trailer fix J
    b.write("app/config.py", CONFIG_V4)
    b.commit("Treat empty settings as none, fixes #21")
    stage_history(b.path, "app", lake)
    with caplog.at_level(logging.WARNING, logger="ltm.bugs"):
        st = stage_bugs(b.path, "app", lake)
    assert (st.mode, st.fixes_blamed, st.fixes_reused) == ("rewritten", 4, 0)
    assert "rewritten" in caplog.text
    refs = {r["ref"] for r in _rows(lake, "Bug")}
    assert "#21" in refs and "#12" in refs and f"intro:{shas['C'][:10]}" not in refs
    assert {r["sha"] for r in lake.read("szz_fixes", "app").to_pylist()} >= {shas["D"], shas["F"]}
    assert shas["J"] not in {r["sha"] for r in lake.read("szz_fixes", "app").to_pylist()}


def test_full_ignores_the_kept_results(tmp_path):
    b, shas, lake, _ = _setup(tmp_path)
    before = _snapshot(lake)
    st = stage_bugs(b.path, "app", lake, full=True)
    assert (st.mode, st.fixes_blamed) == ("full", 4)
    assert _snapshot(lake) == before
