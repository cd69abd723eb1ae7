"""One small real project, ingested once per test module (with the `hash` embedder), for the MCP tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.builder import RepoBuilder
from tests.test_cli import run

CORE = "def helper(x):\n    return x + 1\n\n\ndef compute(y):\n    return helper(y) * 2\n"
CORE_FIXED = "def helper(x):\n    if x is None:\n        return 0\n    return x + 1\n\n\ndef compute(y):\n    return helper(y) * 2\n"
API = "from pkg.core import compute, helper\n\n\ndef serve(v):\n    return compute(v) + helper(v)\n"
TEST = "from pkg.core import compute\n\n\ndef test_compute():\n    assert compute(1) == 4\n"


@dataclass
class Project:
    repo: RepoBuilder
    home: Path
    logs: Path
    shas: dict[str, str]


def build_project(root: Path) -> Project:
    """Five commits: helpers, an API and its test, a fix for bug #12, a file rename, a function rename."""
    b = RepoBuilder(root / "proj")
    shas = {}
    b.write("pkg/__init__.py", "").write("pkg/core.py", CORE).write("pkg/text.py", "def shout(s):\n    return s.upper()\n")
    shas["add"] = b.commit("Add core helpers")
    b.write("pkg/api.py", API).write("tests/test_core.py", TEST)
    shas["api"] = b.commit("feat: api serve\n\nThe body is not shown.", author=("Grace Hopper", "grace@example.com"))
    b.write("pkg/core.py", CORE_FIXED)
    shas["fix"] = b.commit("fix: helper crashed on None (#12)")
    b.git("mv", "pkg/text.py", "pkg/strings.py")
    shas["move"] = b.commit("refactor: text module is strings")
    b.write("pkg/strings.py", "def yell(s):\n    return s.upper()\n")
    shas["rename"] = b.commit("rename shout to yell")
    home = root / "home"
    run("ingest", b.path, "--home", home, "--embedder", "hash")
    logs = root / "logs"
    logs.mkdir()
    return Project(b, home, logs, shas)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    return build_project(tmp_path_factory.mktemp("mcp"))
