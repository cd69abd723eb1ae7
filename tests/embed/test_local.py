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


def test_questions_embedded_without_torch_get_the_pipelines_vectors(model):
    """`ltm query` embeds a question with numpy (no torch import); its vector must be the one
    sentence-transformers gives, or questions would miss what the pipeline stored."""
    from ltm.embed.local import local_model_path
    from ltm.embed.minilm import MiniLMQueryEmbedder
    from ltm.embed.registry import embedder_for_model

    texts = ["where is the session cookie signed", "", "Café naïve — 日本語のテキスト",
             "def parse(x):\n    return x.split(',')", "retry " * 400]  # past 256 tokens: truncated alike
    fast = embedder_for_model(LOCAL_MODEL, 384)
    assert isinstance(fast, MiniLMQueryEmbedder) and fast.model_id == LOCAL_MODEL and fast.dim == 384
    got, want = fast.embed(texts), model.embed(texts)
    assert got.shape == want.shape == (5, 384) and got.dtype == np.float32
    assert np.abs(got - want).max() < 1e-5
    assert MiniLMQueryEmbedder(local_model_path()).embed([]).shape == (0, 384)


def test_a_question_is_embedded_without_importing_torch():
    import subprocess
    import sys

    code = ("import sys; from ltm.embed.registry import embedder_for_model; "
            f"v = embedder_for_model({LOCAL_MODEL!r}, 384).embed(['how are tokens validated']); "
            "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(1, 384) False False"


def test_a_question_runs_on_one_blas_thread_and_leaves_the_setting_as_it_was(monkeypatch):
    """A question's forward pass is many small matrix products: on a busy machine BLAS threads
    waiting on each other made it ten times slower, so it runs on one thread; the process's
    own setting comes back afterwards (the pipeline's matrix work keeps every core)."""
    from threadpoolctl import threadpool_info

    from ltm.embed import minilm
    from ltm.embed.local import local_model_path

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    before = blas_threads()
    seen = []
    real = minilm.MiniLMQueryEmbedder._encode_one
    monkeypatch.setattr(minilm.MiniLMQueryEmbedder, "_encode_one",
                        lambda self, text: (seen.append(blas_threads()), real(self, text))[1])
    vectors = minilm.MiniLMQueryEmbedder(local_model_path()).embed(["where is the cookie signed", "retry"])
    assert vectors.shape == (2, 384)
    assert seen == [{1}, {1}]
    assert blas_threads() == before
