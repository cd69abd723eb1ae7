"""`ltm query` end to end on the fixture home: readable by default, JSON for scripts, filters as flags."""

import json
import re

from click.testing import CliRunner

from cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_readable_output_shows_entity_location_score_reason_and_neighbours(fixture_home):
    res = run("query", "what calls parse_header", "--strategy", "graph_first", "--repo", "svc", "--home", fixture_home.root)
    assert res.exit_code == 0, res.output
    first = res.output.splitlines()[:4]
    assert re.match(r" 1\. \d\.\d{3}  Function handle_request  \[svc\]", first[0]) and "app/api.py:6-9" in first[0]
    assert first[1].startswith("      handle_request")  # the first line of its content
    assert first[2].startswith("      why: graph: calls parse_header")
    assert "->CALLS Function parse_header" in first[3] and "->DEFINED_IN File app/api.py" in first[3]


def test_json_output_and_filters(fixture_home, shas):
    res = run("query", "token validation", "--strategy", "parallel", "--category", "commit_log", "--since", "2023-11-15",
              "--top-k", "3", "--json", "--home", fixture_home.root)
    assert res.exit_code == 0, res.output
    hits = json.loads(res.output)
    assert hits and all(h["label"] == "Commit" and h["created_at"] >= "2023-11-15" for h in hits)
    assert {"score", "why", "neighbours", "content", "strategy"} <= set(hits[0])


def test_bad_input_is_one_line(fixture_home):
    res = run("query", "x", "--since", "last week", "--home", fixture_home.root)
    assert res.exit_code != 0 and "is not a date" in res.output and len(res.output.strip().splitlines()) == 1
    res = run("query", "x", "--strategy", "fastest", "--home", fixture_home.root)
    assert res.exit_code != 0 and "fastest" in res.output
