"""The batch evolution pass in bounded memory: vectors read from the lake a batch at a time into a
matrix (a memmap on disk above a size), the rules judged a batch of pairs at a time; the edges do
not depend on those settings."""

from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
import pytest

from ltm.embed.hashing import HashEmbedder
from ltm.lake import Lake
from ltm.memory import evolution, evolution_pass, memory_vectors
from ltm.memory.evolution import evolve_lake
from ltm.memory.memory_vectors import read_vectors

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
TEXTS = [
    "The HTTP client timeout is 30 seconds",
    "The HTTP client timeout is now 60 seconds",
    "The HTTP client timeout is now 90 seconds",
    "the HTTP client timeout is 90 seconds.",
    "We deploy the billing service on Fridays",
    "We no longer deploy the billing service on Fridays",
    "Releases are cut from the main branch",
    "Releases are now cut from the release branch instead of main",
    "The database pool timeout is 45 seconds",
]


def _write(lake: Lake, memories: list[dict], embeddings: list[tuple[str, list[float]]]) -> None:
    with lake.write("memories") as w:
        w.write("Memory", [{"repo": "memories", **m} for m in memories])
        w.write("embeddings", [{"vector_id": v, "text_hash": "h", "model": "m", "dim": len(x), "vector": x}
                               for v, x in embeddings])


def test_vectors_come_back_in_the_memories_order_last_write_wins_odd_ones_zero(tmp_path, monkeypatch):
    monkeypatch.setattr(memory_vectors, "IN_MEMORY_BYTES", 0)  # the memmap path
    monkeypatch.setattr(memory_vectors, "BATCH_ROWS", 2)  # a duplicate lands in a later batch
    lake = Lake(tmp_path / "lake")
    _write(lake, [], [("va", [1.0, 0.0, 0.0]), ("vb", [0.0, 2.0, 0.0]), ("vc", [1.0, 1.0]),
                      ("va", [0.0, 0.0, 3.0]), ("vd", [4.0, 0.0, 0.0])])
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    v = read_vectors(lake, pl.Series(["vd", "va", "missing", "vc", "vb", None], dtype=pl.String), scratch)
    assert isinstance(v, np.memmap) and list((scratch).iterdir())
    expected = [[4, 0, 0], [0, 0, 3], [0, 0, 0], [0, 0, 0], [0, 2, 0], [0, 0, 0]]
    assert np.asarray(v).tolist() == expected  # va's second row; vc (2-d) and the missing ones zero


@pytest.fixture
def lake(tmp_path):
    vecs = HashEmbedder(256).embed(TEXTS)
    lake = Lake(tmp_path / "lake")
    _write(lake, [{"id": f"m{i}", "vector_id": f"v{i}", "content": t, "created_at": T0 + timedelta(days=i)}
                  for i, t in enumerate(TEXTS)],
           [(f"v{i}", x.tolist()) for i, x in enumerate(vecs)])
    return lake


def _tables(lake):
    return {t: pl.from_arrow(lake.read(t, "memories")).sort("src", "dst") for t in evolution.EVOLUTION_TABLES}


def test_batches_and_memmap_give_the_same_edges_and_leave_no_scratch(lake, monkeypatch):
    evolve_lake(lake)
    whole = _tables(lake)
    sup = {(s, d) for s, d in whole["SUPERSEDES"].select("src", "dst").iter_rows()}
    assert {("m1", "m0"), ("m2", "m1"), ("m5", "m4"), ("m7", "m6")} <= sup
    assert not any(d == "m8" or s == "m8" for s, d in sup)  # the look-alike stays apart
    monkeypatch.setattr(memory_vectors, "IN_MEMORY_BYTES", 0)
    monkeypatch.setattr(evolution_pass, "BATCH_PAIRS", 1)
    stats = evolve_lake(lake)
    assert all(_tables(lake)[t].equals(whole[t]) for t in whole)
    assert stats.edges == {t: df.height for t, df in whole.items()}
    assert not list(lake.root.glob(".evolution-*"))  # the memmap's scratch folder is gone
