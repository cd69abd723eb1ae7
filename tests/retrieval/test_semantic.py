"""A behaviour described in words finds the function that does it (#17 semantic questions).

A question in words sits nearer to prose (notes, commit messages, documentation) than to any
source text, so among all rows the function it describes can fall below the first few dozen: here
35 notes are placed nearer to the question than the function, and nothing shares a word with it,
so only the vector ranking among code alone can find it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ltm import ids
from ltm.embed.hashing import HashEmbedder
from ltm.graph.build import build_graph
from ltm.home import Home
from ltm.lake import Lake
from ltm.query import HybridLTM
from ltm.repos import register_local
from ltm.stages.code import stage_code
from ltm.stages.embeddings import embed_repo
from ltm.stages.history import stage_history
from ltm.vectors import VectorStore, vector_rows
from tests.builder import RepoBuilder

WHERE = "where are tab characters turned into spaces for a help line?"
DECIDED = "what did we decide about tab characters turned into spaces for a help line?"
TEXT = '''def untab(s, width=8):
    return s.expandtabs(width)


def shout(s):
    return s.upper()
'''
NOTES = 35  # more than a search reads from each ranking (30 rows for ten hits)


def _near(q: np.ndarray, seed: int, spread: float) -> np.ndarray:
    """A unit vector at a chosen distance from `q` (the larger `spread`, the farther)."""
    v = q + spread * np.random.default_rng(seed).standard_normal(q.shape[0])
    return (v / np.linalg.norm(v)).astype(np.float32)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Home, str]:
    root = tmp_path_factory.mktemp("semantic")
    b = RepoBuilder(root / "repo")
    b.write("app/__init__.py", "").write("app/text.py", TEXT)
    b.commit("Add text helpers")
    home = Home(root / "home")
    home.create()
    key = register_local(home, root / "repo")
    lake = Lake(home.lake)
    stage_history(root / "repo", key, lake)
    stage_code(root / "repo", key, lake)
    when = datetime(2023, 11, 16, tzinfo=timezone.utc)
    notes = [ids.memory_id("notes", str(i)) for i in range(NOTES)]
    with lake.write(key) as w:
        w.write("Memory", [{"id": m, "repo": key, "vector_id": ids.vector_id(m), "memory_type": "note",
                            "category": "architecture", "content": f"release note {i}: the team met on day {i}",
                            "source": "notes", "created_at": when, "text": f"release note {i}: the team met on day {i}"}
                           for i, m in enumerate(notes)])
    embed_repo(lake, key, HashEmbedder(64), home.cache / "embeddings")
    build_graph(home.graph, lake)
    # The notes nearer the question than the function, the function nearer than everything else.
    q = HashEmbedder(64).embed([WHERE])[0]
    placed = {ids.vector_id(m): _near(q, i, 0.05) for i, m in enumerate(notes)}
    placed[ids.vector_id(ids.function_id(key, "app/text.py", "untab"))] = _near(q, 99, 0.4)
    rows = vector_rows(lake, key)
    vectors = [placed.get(vid, v) for vid, v in zip(rows.column("vector_id").to_pylist(),
                                                   rows.column("vector").to_numpy(zero_copy_only=False))]
    col = rows.schema.get_field_index("vector")
    rows = rows.set_column(col, rows.schema.field(col), pa.array([list(v) for v in vectors], rows.schema.field(col).type))
    VectorStore(home.vectors).upsert_repo(key, rows)
    return home, key


def test_a_where_question_finds_the_function_it_describes_behind_many_nearer_notes(home):
    h, key = home
    with HybridLTM(h) as m:
        hits = m.query(WHERE, strategy="parallel", top_k=10)
    assert hits[0]["graph_entity_id"] == ids.function_id(key, "app/text.py", "untab")
    assert any("among code" in w for w in hits[0]["why"])


def test_a_question_about_what_the_team_decided_still_puts_the_notes_first(home):
    h, key = home
    with HybridLTM(h) as m:
        hits = m.query(DECIDED, strategy="parallel", top_k=10)
    assert hits and all(x["graph_entity_id"].startswith("mem:notes:") for x in hits)
