"""`ltm ingest --issues`: the issue export reaches the bugs stage; a missing one is one clear line."""

import json

from click.testing import CliRunner

from cli import main
from tests.stages.test_bugs import _history


def test_ingest_with_an_issue_export_titles_the_bug_and_a_missing_export_is_refused(tmp_path):
    b, _ = _history(tmp_path / "repo")
    home = tmp_path / "home"
    runner = CliRunner()
    missing = runner.invoke(main, ["ingest", str(b.path), "--home", str(home), "--embedder", "hash",
                                   "--issues", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 3 and "none.jsonl does not exist" in missing.output
    assert not (home / "lake").exists()
    export = tmp_path / "issues.jsonl"
    export.write_text(json.dumps({"number": 12, "title": "Blank-padded tokens refused", "labels": ["bug"]}) + "\n")
    ok = runner.invoke(main, ["ingest", str(b.path), "--home", str(home), "--embedder", "hash", "--issues", str(export)])
    assert ok.exit_code == 0, ok.output
    stats = json.loads(runner.invoke(main, ["stats", "--json", "--home", str(home)]).output)
    assert stats["nodes"]["Bug"] == 4 and stats["rels"]["FIXES"] == 4
    hits = runner.invoke(main, ["query", "Blank-padded tokens refused", "--home", str(home), "--json"])
    assert "Blank-padded tokens refused" in hits.output
