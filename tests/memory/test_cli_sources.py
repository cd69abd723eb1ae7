"""`ltm memory sources`: list the sources every ingest re-reads, and stop re-reading one."""

from __future__ import annotations

import json

from click.testing import CliRunner

from cli import main


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_sources_are_listed_and_one_can_be_removed(tmp_path):
    home = tmp_path / "home"
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"id": "1", "content": "retry must back off"}) + "\n")
    b.write_text(json.dumps({"id": "2", "content": "parse_header keeps folded lines"}) + "\n")
    assert _run("memory", "import", a, "--home", home).exit_code == 0
    assert _run("memory", "import", b, "--home", home).exit_code == 0
    assert _run("memory", "import", tmp_path / "once.jsonl", "--once", "--home", home).exit_code != 0  # missing file
    listed = json.loads(_run("memory", "sources", "--json", "--home", home).output)
    assert listed == [{"format": "jsonl", "path": a.resolve().as_posix()}, {"format": "jsonl", "path": b.resolve().as_posix()}]

    res = _run("memory", "sources", "--remove", a, "--json", "--home", home)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{"format": "jsonl", "path": b.resolve().as_posix()}]
    assert json.loads((home / "settings.json").read_text())["memory_sources"] == [{"format": "jsonl", "path": b.resolve().as_posix()}]

    res = _run("memory", "sources", "--remove", a, "--home", home)
    assert res.exit_code == 3 and "no registered memory source" in res.output
