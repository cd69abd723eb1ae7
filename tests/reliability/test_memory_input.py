"""Bad memory lines are reported with their number and skipped; they never abort an import, and a
registered source with bad lines never stops the ingest of a repository.

Values that once aborted the whole import: NaN, Infinity, 1e30 and 2**70 as line numbers, JSON
nested 200,000 deep, a TraceMem message whose `tool_uses` is a number.
"""

from __future__ import annotations

import json

import pytest

from tests.builder import sample_repo
from tests.reliability.harness import ltm, one_line_error

GOOD = {"id": "ok1", "content": "parse_header keeps folded lines", "metadata": {"line_start": 3}}
BAD_LINE_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e30", str(2**70), "-4"]


def _jsonl_with_bad_lines(path):
    lines = [json.dumps(GOOD)]
    lines += ['{"id": "b%d", "content": "x", "metadata": {"line_start": %s}}' % (i, v)
              for i, v in enumerate(BAD_LINE_NUMBERS)]
    lines.append('{"id": "deep", "content": "x", "metadata": ' + "[" * 200_000 + "]" * 200_000 + "}")
    lines.append(json.dumps({"id": "ok2", "content": "retry must back off", "metadata": {"importance": 0.5}}))
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def test_bad_values_are_skipped_with_their_line_and_the_rest_loads(tmp_path):
    notes = tmp_path / "notes.jsonl"
    n = _jsonl_with_bad_lines(notes)
    res = ltm("memory", "import", notes, "--json", "--home", tmp_path / "home")
    report = json.loads(res.stdout)
    assert report["loaded"] == 2 and report["skipped"] == n - 2
    bad = {b["line"]: b["error"] for b in report["bad_lines"]}
    assert sorted(bad) == list(range(2, n))
    assert all("line_start" in bad[i + 2] for i in range(len(BAD_LINE_NUMBERS)))
    assert "nested too deeply" in bad[n - 1]


def test_tracemem_tool_uses_not_a_list_is_one_bad_line(tmp_path):
    export = tmp_path / "conv.jsonl"
    export.write_text("\n".join(json.dumps(x) for x in [
        {"id": "m1", "role": "user", "content": "why does retry loop?"},
        {"id": "m2", "role": "assistant", "content": "looking", "tool_uses": 5},
        {"id": "m3", "role": "assistant", "content": "found it", "tool_uses": [{"name": "Read", "input": {"file_path": "app/util.py"}}]},
    ]) + "\n")
    report = json.loads(ltm("memory", "import", export, "--format", "tracemem", "--json", "--home", tmp_path / "home").stdout)
    assert report["loaded"] == 2
    assert [b["line"] for b in report["bad_lines"]] == [2] and "tool_uses" in report["bad_lines"][0]["error"]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e30", str(2**70)])
def test_memory_add_with_a_bad_line_number_is_one_clear_line(tmp_path, value):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    err = one_line_error(ltm("memory", "add", "a note", "--metadata", '{"line_start": %s}' % value, "--home", home,
                             check=False))
    assert "line_start" in err


def test_a_registered_source_with_bad_lines_does_not_stop_ingest(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps(GOOD) + "\n")
    ltm("memory", "import", notes, "--home", home)  # registered: re-read on every ingest
    _jsonl_with_bad_lines(notes)
    ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    hits = json.loads(ltm("query", "retry must back off", "--json", "--category", "memory", "--home", home).stdout)
    assert any(h["graph_entity_id"] == "mem:jsonl:ok2" for h in hits)
