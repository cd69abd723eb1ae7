"""Extract a small fixture project and compare its graph with hand-written expectations as sets."""

from __future__ import annotations

from pathlib import Path

from ltm.extract.code.entities import CodeExtraction, extract_code
from ltm.extract.gitrepo import GitRepo
from tests.builder import RepoBuilder

REPO = "r"
RELS = ("HAS_METHOD", "IMPORTS", "DEPENDS_ON", "EXTENDS", "IMPLEMENTS", "CALLS")


def short(entity_id: str) -> str:
    """`fn:r:a.py:f` -> `fn:a.py:f`; `mod:r:ext:py:os` -> `ext:os`; `mod:r:a.b` -> `mod:a.b`."""
    kind, _, rest = entity_id.partition(f":{REPO}:")
    if kind == "mod" and rest.startswith("ext:"):
        return "ext:" + rest.split(":", 2)[2]
    return f"{kind}:{rest}"


def extract(tmp_path: Path, files: dict[str, str], workers: int | None = None) -> CodeExtraction:
    b = RepoBuilder(tmp_path / "fixture")
    for path, text in files.items():
        b.write(path, text)
    b.commit("fixture")
    return extract_code(GitRepo(b.path), REPO, workers=workers)


def graph(out: CodeExtraction) -> dict[str, set]:
    """Classes, functions, modules and every code edge as sets of short ids."""
    t = out.tables
    g = {
        "classes": {short(r["id"]) for r in t["Class"]},
        "functions": {short(r["id"]) for r in t["Function"]},
        "modules": {short(r["id"]) for r in t["Module"]},
    }
    for rel in RELS:
        g[rel] = {(short(e["src"]), short(e["dst"])) for e in t[rel]}
    return g


def confidences(out: CodeExtraction) -> dict[tuple[str, str], float]:
    return {(short(e["src"]), short(e["dst"])): e["confidence"] for e in out.tables["CALLS"]}


def assert_graph(out: CodeExtraction, expected: dict[str, set]) -> None:
    """Every key of `expected` must match exactly: a missing or an extra edge fails."""
    got = graph(out)
    for key, want in expected.items():
        assert got[key] == want, f"{key}: missing {want - got[key]}, extra {got[key] - want}"
