"""Quotes, backticks, newlines and Cypher fragments in every user-controlled string.

They arrive through file paths, commit messages, author names, the repository's folder name and
the home's path, and are queried back; nothing is interpreted, everything is stored verbatim.
"""

from __future__ import annotations

import json

from ltm.graph.engine import query
from ltm.graph.read import open_current
from tests.builder import RepoBuilder
from tests.reliability.harness import assert_reconciled, ltm, stats

CYPHER = "'}) MATCH (n) DETACH DELETE n //"
MESSAGES = [
    f"fix: quote ' and \" and `backtick` {CYPHER}",
    "feat: newline\nsecond line with $param and {{braces}} and \\ backslash",
    "chore: '); DROP TABLE entries; -- \" OR 1=1 --",
]
AUTHOR = ("O'Brien \"Bobby\" `tables`", "o'brien@example.com")
PATHS = ["odd/we'ird \"name\".py", "odd/back`tick`.py", "odd/new\nline.py", "odd/MATCH (n) DELETE n.py"]


def test_hostile_strings_are_stored_and_queried_verbatim(tmp_path):
    b = RepoBuilder(tmp_path / "re'po \"q\" `x`")
    for i, p in enumerate(PATHS):
        b.write(p, f"def f{i}():\n    \"\"\"{CYPHER}\"\"\"\n    return '{CYPHER}'\n")
    b.commit(MESSAGES[0], author=AUTHOR)
    b.write("odd/more.py", "def g():\n    return 1\n").commit(MESSAGES[1], author=AUTHOR)
    b.write("odd/more.py", "def g():\n    return 2\n").commit(MESSAGES[2], author=AUTHOR)
    home = tmp_path / "ho'me \"q\" `h`" / "x"
    home.parent.mkdir()
    ltm("ingest", b.path, "--home", home, "--embedder", "hash")
    s = stats(home)
    assert s["nodes"]["Commit"] == 3 and s["nodes"]["Function"] == 5
    with open_current(home / "graph") as conn:
        for m in MESSAGES:
            rows = query(conn, "MATCH (c:Commit) WHERE c.message = $m RETURN c.author_name", {"m": m})
            assert rows == [[AUTHOR[0]]], m
        paths = {r[0] for r in query(conn, "MATCH (f:File) RETURN f.path")}
        assert set(PATHS) <= paths
        docs = {r[0] for r in query(conn, "MATCH (f:Function) WHERE f.name STARTS WITH 'f' RETURN f.docstring")}
        assert docs == {CYPHER}
    # a query made of Cypher and SQL fragments is only text to search for
    for text in (CYPHER, "'; DROP TABLE entries; --", "` MATCH (n) RETURN n `"):
        hits = json.loads(ltm("query", text, "--json", "--home", home).stdout)
        assert hits
    assert stats(home) == s
    assert_reconciled(home)
