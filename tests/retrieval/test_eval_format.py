"""The labelled evaluation set in bench/eval/ keeps its format (no repository needed): a question
the harness cannot score, or a bug question that gives its answer away, fails here."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

EVAL = Path(__file__).resolve().parents[2] / "bench" / "eval"
KINDS = {"semantic", "structural", "history", "bug", "memory"}
ID = re.compile(r"^(fn|cls):[^:]+:[^:]+$|^(file|mod):[^:]+$|^commit:[0-9a-f]{8,40}$|^mem:jsonl:[\w.-]+$")
REPOS = json.loads((EVAL / "repos.json").read_text())
FILES = [EVAL / f"{r['repo'].replace('/', '__')}.jsonl" for r in REPOS]
PRESENT = [f for f in FILES if f.is_file()]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_every_pinned_commit_is_a_full_sha_and_no_held_out_repository_is_used():
    for r in REPOS:
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]), r
        assert r["repo"] not in {"psf/requests", "pallets/flask", "encode/httpx"}, "kept for held-out checks"


@pytest.mark.parametrize("path", PRESENT, ids=lambda p: p.stem)
def test_questions_are_well_formed(path: Path):
    qs = _lines(path)
    assert len({q["id"] for q in qs}) == len(qs), "duplicate question ids"
    for q in qs:
        assert q["kind"] in KINDS, q["id"]
        assert q["split"] in {"tune", "report"}, q["id"]
        assert q["question"].strip() and q["expected"], q["id"]
        bad = [e for e in q["expected"] if not ID.match(e)]
        assert not bad, f"{q['id']}: ids the harness cannot match: {bad}"
        assert q.get("verified"), f"{q['id']}: say how the answer was checked"


@pytest.mark.parametrize("path", PRESENT, ids=lambda p: p.stem)
def test_bug_questions_do_not_give_the_answer_away(path: Path):
    for q in (q for q in _lines(path) if q["kind"] == "bug"):
        assert q.get("source"), f"{q['id']}: a bug question names its public issue thread"
        number = re.search(r"/(?:issues|pull)/(\d+)", q["source"] or "")
        assert not (number and re.search(rf"#{number.group(1)}\b|\b{number.group(1)}\b", q["question"])), q["id"]
        shas = [e.split(":")[1] for e in q["expected"] if e.startswith("commit:")]
        assert not any(s[:7] in q["question"] for s in shas), q["id"]


@pytest.mark.parametrize("path", PRESENT, ids=lambda p: p.stem)
def test_each_kind_is_in_both_halves(path: Path):
    halves = Counter((q["kind"], q["split"]) for q in _lines(path))
    for kind in {k for k, _ in halves}:
        if halves[(kind, "tune")] + halves[(kind, "report")] >= 2:
            assert halves[(kind, "tune")] and halves[(kind, "report")], f"{kind} only in one half"


@pytest.mark.parametrize("path", [p.with_suffix(".memories.jsonl") for p in PRESENT
                                  if p.with_suffix(".memories.jsonl").is_file()], ids=lambda p: p.stem)
def test_labelled_memories_load_as_memories(path: Path):
    for m in _lines(path):
        assert m["id"] and m["content"], m
        assert all(ID.match(e) for e in m.get("expected_links", [])), m["id"]
