"""Secrets committed to a repository never reach the lake, the graph, the vectors, the caches,
the run storage or an answer: 33 formats in code, docstrings, commit messages, Markdown and an
imported memory, each replaced by a marker that keeps its kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lancedb
import pyarrow.parquet as pq

from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.query import HybridLTM
from tests.builder import RepoBuilder
from tests.reliability.harness import assert_reconciled, ltm
from tests.reliability.secrets_corpus import SECRETS


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _leaks(texts: list[str]) -> set[str]:
    return {kind for kind, (secret, _) in SECRETS.items() for t in texts if secret in t}


def _repo(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "leaky")
    kinds = list(SECRETS)
    body = "".join(
        f"def connect_{i}():\n    \"\"\"Connect with {SECRETS[k][1]!r}.\"\"\"\n    return {SECRETS[k][1]!r}\n\n"
        for i, k in enumerate(kinds)
    )
    b.write("app/config.py", body)
    b.write("docs/setup.md", "# Setup\n\n" + "\n\n".join(SECRETS[k][1] for k in kinds) + "\n")
    b.commit("Add config with\n\n" + "\n".join(SECRETS[k][1] for k in kinds[:12]))
    b.write("app/config.py", body + "def later():\n    return 1\n")
    b.commit("Rotate keys\n\n" + "\n".join(SECRETS[k][1] for k in kinds[12:]))
    return b


def test_no_secret_is_stored_embedded_or_answered(tmp_path):
    repo = _repo(tmp_path)
    home = tmp_path / "home"
    notes = tmp_path / "notes.jsonl"
    notes.write_text("".join(json.dumps({"id": f"n{i}", "content": f"remember {line}"}) + "\n"
                             for i, (_, line) in enumerate(SECRETS.values())))
    ltm("memory", "import", notes, "--home", home)
    run = ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
    added = ltm("memory", "add", "deploy notes: " + SECRETS["aws-access-key"][1] + " " + SECRETS["password"][1],
                "--json", "--home", home)  # an online memory: embedded and put in the graph at once
    outputs = [run.stdout + run.stderr, added.stdout, ltm("query", "--json", "--home", home, "--", SECRETS["private-key"][1]).stdout]
    with HybridLTM(home) as memory:
        for kind, (_, line) in SECRETS.items():
            for strategy in ("parallel", "graph_only"):
                outputs.append(json.dumps(memory.query(line[:60], strategy=strategy, top_k=10), default=str))
            outputs.append(json.dumps(memory.query(kind.replace("-", " "), top_k=10), default=str))
    assert _leaks(outputs) == set()
    assert re.search(r"^  commits .* redacted=\d+", run.stderr, re.M) and re.search(r"^  code_entities .* redacted=\d+", run.stderr, re.M)

    lake = [s for f in (home / "lake").rglob("*.parquet") for s in _strings(pq.read_table(f).to_pylist())]
    assert lake and _leaks(lake) == set()
    with open_current(home / "graph") as conn:
        graph = _strings([r for r in query(conn, "MATCH (n) RETURN n")] + [r for r in query(conn, "MATCH ()-[e]->() RETURN e")])
    assert graph and _leaks(graph) == set()
    db = lancedb.connect(str(home / "vectors"))
    vectors = [s for name in db.table_names() for s in _strings(db.open_table(name).to_arrow().drop_columns(["vector"]).to_pylist())]
    assert vectors and _leaks(vectors) == set()
    raw = [p.read_bytes().decode("latin-1") for p in home.rglob("*") if p.is_file() and not p.is_symlink()]
    assert _leaks(raw) == set()  # caches, run storage, Kuzu files, anything written uncompressed

    # what was hidden is still there as a marker naming its kind, so a reader knows a secret was there
    markers = "\n".join(lake)
    assert all(f"[redacted:{kind}]" in markers for kind in SECRETS)
    assert_reconciled(home)


def test_redaction_can_be_turned_off_in_the_settings(tmp_path):
    b = RepoBuilder(tmp_path / "plain")
    secret, line = SECRETS["github-token"]
    b.write("app/ci.py", f"def publish():\n    return {line!r}\n").commit("Add CI publish")
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"redact_secrets": False}))
    run = ltm("ingest", b.path, "--home", home, "--embedder", "hash")
    assert "redacted=" not in run.stderr
    lake = [s for f in (home / "lake").rglob("*.parquet") for s in _strings(pq.read_table(f).to_pylist())]
    assert any(secret in t for t in lake)
