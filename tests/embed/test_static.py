"""The `static` provider: WordLlama's model from its package, offline, used by ingest and query."""

import json
import logging
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from cli import main
from ltm.embed.registry import embedder_for_model
from ltm.embed.static import STATIC_MODEL, StaticEmbedder
from ltm.errors import EmbeddingError
from ltm.vectors import VectorStore


@pytest.fixture(scope="module")
def model():
    return StaticEmbedder()


def test_static_model_loads_offline_and_ranks_by_meaning(model, monkeypatch):
    monkeypatch.setattr("requests.get", lambda *a, **k: pytest.fail(f"the static model reached for {a}"))
    fresh = StaticEmbedder()  # loaded again with any download refused
    assert fresh.model_id == STATIC_MODEL and fresh.dim == 256
    v = fresh.embed(["validate an authentication token", "check the signature of a login token",
                     "bake a chocolate cake", ""])
    assert v.shape == (4, 256) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-4) and not v[3].any()
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2


def test_batches_give_the_same_vectors_and_loading_leaves_logging_alone(model):
    texts = [f"parse the header number {i} of a request" for i in range(7)] + ["", "x" * 20_000]
    small = StaticEmbedder(batch_size=2).embed(texts)
    assert np.allclose(small, model.embed(texts), atol=1e-6)
    # wordllama calls logging.basicConfig(level=INFO) on import: every library's INFO lines would reach stderr
    code = "import logging; from ltm.embed.static import StaticEmbedder; StaticEmbedder(); r = logging.getLogger(); " \
           "print(len(r.handlers), r.level)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", str(logging.WARNING)], out.stdout


def test_a_home_of_the_retired_distilled_table_is_told_to_reembed():
    with pytest.raises(EmbeddingError, match="ltm reembed --embedder static"):
        embedder_for_model("ltm-static/all-MiniLM-L6-v2-distilled", 256)
    assert embedder_for_model(STATIC_MODEL, 256).model_id == STATIC_MODEL


def test_ingest_and_query_with_the_static_model(model, repo, home_dir):
    res = CliRunner().invoke(main, ["ingest", str(repo.path), "--home", str(home_dir), "--embedder", "static"])
    assert res.exit_code == 0, res.output
    assert VectorStore(home_dir / "vectors").model() == {"model": STATIC_MODEL, "dim": 256, "table": "entries"}
    res = CliRunner().invoke(main, ["query", "check the token signature", "--json", "--home", str(home_dir)])
    hits = json.loads(res.output)
    top = [h["graph_entity_id"] for h in hits[:3]]
    assert any(t.endswith("Validator.validate_token") for t in top), top
