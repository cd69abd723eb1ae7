"""A LanceDB table whose version files were lost: readers say so in one line and name the fix;
the next ingest of any repository rebuilds the whole table from the lake."""

from __future__ import annotations

import json
import shutil

from tests.builder import RepoBuilder, sample_repo
from tests.reliability.harness import assert_reconciled, ltm, one_line_error, stats


def test_lost_versions_are_reported_then_rebuilt_by_the_next_ingest(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    other = RepoBuilder(tmp_path / "other")
    other.write("lib/tool.py", "def tool_helper(x):\n    return x * 2\n").commit("Add tool")
    home = tmp_path / "home"
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps({"id": "n1", "content": "tool_helper doubles its input"}) + "\n")
    ltm("memory", "import", notes, "--home", home)
    ltm("ingest", repo.path, other.path, "--home", home, "--embedder", "hash")
    before = stats(home)
    table = json.loads((home / "vectors" / "model.json").read_text())["table"]
    shutil.rmtree(home / "vectors" / f"{table}.lance" / "_versions")

    for args in (["query", "validate the token", "--json"], ["stats", "--json"]):
        err = one_line_error(ltm(*args, "--home", home, check=False))
        assert "damaged" in err and "ltm ingest" in err, err

    ltm("ingest", repo.path, "--home", home)  # one repository's run rebuilds every partition's rows
    assert stats(home) == before
    assert_reconciled(home)
    hits = json.loads(ltm("query", "tool_helper doubles", "--json", "--home", home).stdout)
    assert any("tool_helper" in h["graph_entity_id"] or h["graph_entity_id"] == "mem:jsonl:n1" for h in hits)
