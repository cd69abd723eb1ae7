"""The default provider: the real all-MiniLM-L6-v2, loaded offline from the installed package."""

import numpy as np
import pytest

from ltm.embed.local import LOCAL_MODEL, LocalEmbedder


@pytest.fixture(scope="module")
def model():
    return LocalEmbedder(batch_size=8)


def test_local_model_loads_offline_and_ranks_by_meaning(model):
    assert model.model_id == LOCAL_MODEL and model.dim == 384
    v = model.embed(["validate an authentication token", "check the signature of a login token", "bake a chocolate cake"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2
