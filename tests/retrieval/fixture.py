"""A fixture home for retrieval: a real repository mined by the real stages (commits, code entities
with CALLS / IMPORTS / DEPENDS_ON, PageRank at build), plus hand-written lake rows of the kind the
history, bug and memory stages write (MODIFIES, Bug/FIXES/AFFECTS, FunctionDefects,
Memory/RELATES_TO_FILE), so every strategy is checked against a known structure and history.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ltm import ids
from ltm.embed.hashing import HashEmbedder
from ltm.graph.build import build_graph
from ltm.home import Home
from ltm.lake import Lake
from ltm.repos import register_local
from ltm.stages.code import stage_code
from ltm.stages.embeddings import embed_repo
from ltm.stages.history import stage_history
from ltm.vectors import VectorStore, vector_rows
from tests.builder import SAMPLE_AUTH, SAMPLE_UTIL, RepoBuilder

API = '''"""HTTP entry points."""

from app.auth import Validator, parse_header


def handle_request(header):
    """Authenticate one request from its Authorization header."""
    scheme, token = parse_header(header)
    return Validator("secret").validate_token(token)
'''

ERRORS = '''"""Error responses."""


def handle_error(exc):
    """Log the error and turn the exception into an error response."""
    return {"error": format_error_message(exc)}


def format_error_message(exc):
    """Human readable message for an exception."""
    return str(exc)
'''

LINUS = ("Linus Torvalds", "linus@example.com")
GRACE = ("Grace Hopper", "grace@example.com")


def build_repo(path: Path) -> dict[str, str]:
    """Four commits with known authors; returns name -> sha."""
    b = RepoBuilder(path)
    b.write("README.md", "# sample\n").write("app/__init__.py", "").write("app/util.py", SAMPLE_UTIL)
    shas = {"init": b.commit("Add util module")}
    b.write("app/auth.py", SAMPLE_AUTH)
    shas["feat"] = b.commit("feat: token validation", author=GRACE)
    b.write("app/api.py", API).write("app/errors.py", ERRORS)
    shas["api"] = b.commit("Add request handling and error responses", author=GRACE)
    b.write("app/auth.py", SAMPLE_AUTH.replace('body, _, sig = token.partition(".")', 'body, _, sig = (token or "").partition(".")'))
    shas["fix"] = b.commit("Fix #12: reject empty tokens in validate_token", author=LINUS)
    return shas


def _edge(src: str, dst: str, a: str, b: str, repo: str, **props) -> dict:
    return {"src": src, "dst": dst, "src_label": a, "dst_label": b, "repo": repo, **props}


def extra_lake_rows(repo: str, shas: dict[str, str]) -> dict[str, list[dict]]:
    """The rows later stages add for this repository, written from the fixture's known source."""
    fn = lambda path, q: ids.function_id(repo, path, q)  # noqa: E731
    c = lambda k: ids.commit_id(repo, shas[k])  # noqa: E731
    vt, ph = fn("app/auth.py", "Validator.validate_token"), fn("app/auth.py", "parse_header")
    hr, he = fn("app/api.py", "handle_request"), fn("app/errors.py", "handle_error")
    bug = ids.bug_id(repo, "#12")
    mem, quoted = ids.memory_id("notes", "1"), ids.memory_id("notes", "2")
    when = datetime(2023, 11, 16, tzinfo=timezone.utc)
    return {
        "MODIFIES": [_edge(c("feat"), vt, "Commit", "Function", repo, lines_added=4, lines_deleted=0, change_type="add"),
                     _edge(c("feat"), ph, "Commit", "Function", repo, lines_added=9, lines_deleted=0, change_type="add"),
                     _edge(c("api"), hr, "Commit", "Function", repo, lines_added=4, lines_deleted=0, change_type="add"),
                     _edge(c("fix"), vt, "Commit", "Function", repo, lines_added=1, lines_deleted=1, change_type="modify")],
        "Bug": [{"id": bug, "repo": repo, "vector_id": ids.vector_id(bug), "ref": "#12",
                 "title": "Empty token crashes the validator", "text": "Bug #12: empty token crashes the validator"}],
        "FIXES": [_edge(c("fix"), bug, "Commit", "Bug", repo, evidence="message", confidence=1.0)],
        "AFFECTS": [_edge(bug, vt, "Bug", "Function", repo)],
        "Memory": [
            {"id": mem, "repo": repo, "vector_id": ids.vector_id(mem), "memory_type": "note", "category": "architecture",
             "content": "Secrets for signing are rotated weekly", "source": "notes", "created_at": when,
             "text": "Secrets for signing are rotated weekly"},
            {"id": quoted, "repo": repo, "vector_id": ids.vector_id(quoted), "memory_type": "note", "category": "guideline",
             "content": "Don't call \"eval\" on headers'); MATCH (n) DETACH DELETE n //", "source": "notes",
             "created_at": when, "text": "Don't call \"eval\" on headers'); MATCH (n) DETACH DELETE n //"},
        ],
        "FunctionDefects": [{"id": he, "repo": repo, "fix_count": 2, "churn": 10, "bugs_introduced": 1},
                            {"id": vt, "repo": repo, "fix_count": 1, "churn": 6, "bugs_introduced": 0}],
        "RELATES_TO_FILE": [_edge(mem, ids.file_id(repo, "app/auth.py"), "Memory", "File", repo,
                                  relevance_score=0.9, context="path", linked_at=when)],
    }


def ingest(home: Home, repo_path: Path, extra: bool = True, shas: dict[str, str] | None = None) -> str:
    """Mine, add the later stages' rows, embed (hash-64) and write both stores, as `ltm ingest` does."""
    home.create()
    key = register_local(home, repo_path)
    lake = Lake(home.lake)
    stage_history(repo_path, key, lake)
    stage_code(repo_path, key, lake)
    if extra and shas:
        with lake.write(key) as w:
            for table, rows in extra_lake_rows(key, shas).items():
                w.write(table, rows)
    embed_repo(lake, key, HashEmbedder(64), home.cache / "embeddings")
    build_graph(home.graph, lake)
    VectorStore(home.vectors).upsert_repo(key, vector_rows(lake, key))
    return key
