"""The OpenAI API key never appears in output, logs, run metadata, the lake or error messages."""

from __future__ import annotations

from pathlib import Path

from tests.builder import sample_repo
from tests.reliability.harness import assert_reconciled, ltm, one_line_error
from tests.reliability.openai_server import EmbeddingServer

KEY = "sk-reliability-" + "7f3c9a1e5b2d4c6a" * 3


def _files_containing(root: Path, needle: bytes) -> list[str]:
    found = []
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            if needle in data:
                found.append(str(p.relative_to(root)))
    return found


def test_api_key_is_nowhere_after_a_run_with_the_openai_embedder(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    with EmbeddingServer(KEY) as server:
        key_env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
        outputs = [ltm("ingest", repo.path, "--home", home, "--embedder", "openai", **key_env)]
        outputs += [ltm("query", "validate the token", "--json", "--home", home, **key_env),
                    ltm("stats", "--json", "--home", home), ltm("reconcile", "--json", "--home", home)]
        # the server really was used, with the key sent as the bearer token (so the run held it)
        assert server.requests and all(r["auth"] == f"Bearer {KEY}" for r in server.requests)
        # a failing request: a wrong key is refused; the error line names the endpoint, not the key
        wrong = "sk-wrong-" + "0" * 40
        repo.write("app/new.py", "def brand_new():\n    return 1\n").commit("Add new")
        res = ltm("ingest", repo.path, "--home", home, check=False, OPENAI_API_KEY=wrong, OPENAI_BASE_URL=server.base_url)
        line = one_line_error(res)
        assert "401" in line and "127.0.0.1" in line and "OPENAI_API_KEY" in line and wrong not in line
        outputs.append(res)
    for out in outputs:
        assert KEY not in out.stdout and KEY not in out.stderr
    # everywhere under the home: Dagster's run storage and event log, the lake, caches, graph, vectors
    assert (home / "dagster").is_dir() and any((home / "dagster").rglob("*.db"))
    assert _files_containing(home, KEY.encode()) == []
    assert _files_containing(home, wrong.encode()) == []
    assert_reconciled(home)
