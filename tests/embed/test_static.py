"""The `static` provider: distilled offline from the bundled model, then used by ingest and query.

The distilled table is made once per machine (in `$LTM_MODEL_CACHE`, else the user's cache) and
reused by every later run, as in normal use.
"""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from cli import main
from ltm.embed.static import STATIC_MODEL, StaticEmbedder
from ltm.vectors import VectorStore


@pytest.fixture(scope="module")
def model():
    return StaticEmbedder()


def test_static_model_is_distilled_offline_and_ranks_by_meaning(model):
    assert model.model_id == STATIC_MODEL and model.dim == 256
    v = model.embed(["validate an authentication token", "check the signature of a login token",
                     "bake a chocolate cake", ""])
    assert v.shape == (4, 256) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-4) and not v[3].any()
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2


def test_ingest_and_query_with_the_static_model(model, repo, home_dir):
    res = CliRunner().invoke(main, ["ingest", str(repo.path), "--home", str(home_dir), "--embedder", "static"])
    assert res.exit_code == 0, res.output
    assert VectorStore(home_dir / "vectors").model() == {"model": STATIC_MODEL, "dim": 256, "table": "entries"}
    res = CliRunner().invoke(main, ["query", "check the token signature", "--json", "--home", str(home_dir)])
    hits = json.loads(res.output)
    top = [h["graph_entity_id"] for h in hits[:3]]
    assert any(t.endswith("Validator.validate_token") for t in top), top
