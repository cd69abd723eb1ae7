"""An OpenAI-compatible server that answers 200 with vectors that are not vectors (NaN, rows of
different lengths, text): the ingest fails with one line naming the server, nothing of that batch
is cached or recorded, and the next run against a healthy server succeeds."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from tests.builder import sample_repo
from tests.embed.openai_server import KEY, FakeOpenAI, Fault
from tests.reliability.harness import assert_reconciled, ltm, one_line_error


def _cached_vectors(home):
    out = []
    for db in (home / "cache" / "embeddings").glob("*.sqlite"):
        with sqlite3.connect(db) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for t in tables:
                cols = [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
                if "vector" in cols:
                    out += [np.frombuffer(r[0], dtype=np.float32) for r in conn.execute(f"SELECT vector FROM {t}")]
    return out


@pytest.mark.parametrize("kind, words", [("nan", "NaN"), ("ragged", "equal-length"), ("garbage", "not")])
def test_bad_vectors_fail_the_run_cleanly_and_a_healthy_server_then_works(tmp_path, kind, words):
    repo = sample_repo(tmp_path / "sample")
    home = tmp_path / "home"
    server = FakeOpenAI(faults=[Fault(kind)]).start()
    try:
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
        err = one_line_error(ltm("ingest", repo.path, "--home", home, "--embedder", "openai", check=False, **env))
        assert "127.0.0.1" in err and words in err, err
        assert all(np.isfinite(v).all() and v.size == 1536 for v in _cached_vectors(home))
        assert not (home / "vectors" / "model.json").exists()
        ltm("ingest", repo.path, "--home", home, "--embedder", "openai", **env)  # the server is healthy again
        assert json.loads((home / "vectors" / "model.json").read_text())["dim"] == 1536
        assert_reconciled(home)
    finally:
        server.stop()
