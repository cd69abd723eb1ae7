"""The `openai` provider with the official client against a real HTTP server on 127.0.0.1."""

import numpy as np
import pytest

from ltm.embed.cache import EmbeddingCache, embed_with_cache
from ltm.embed.openai_api import OpenAIEmbedder
from ltm.errors import BatchFailedError, EmbeddingError
from tests.embed.openai_server import ENC, KEY, Fault, FakeOpenAI, vector_for


@pytest.fixture
def server():
    s = FakeOpenAI(max_inputs=8, max_request_tokens=300, max_input_tokens=50).start()
    yield s
    s.stop()


def _embedder(server, **kw):
    opts = dict(model="m-test", api_key=KEY, base_url=server.base_url, dimensions=8, batch_size=8,
                max_request_tokens=300, max_input_tokens=50, concurrency=3, timeout=1.0,
                max_retries=3, backoff_base_s=0.01, backoff_max_s=0.05)
    opts.update(kw)
    return OpenAIEmbedder(**opts)


def _texts():
    short = [f"def handler_{i}(request): return respond(request, code={i})" for i in range(40)]
    long = [" ".join(f"token{j}_{i}" for j in range(120)) for i in range(3)]  # well over 50 tokens each
    return short + long


def test_run_completes_through_429_500_and_timeout_with_every_vector(server, tmp_path):
    texts = _texts()
    server.faults += [
        Fault("429", retry_after="1", match=texts[0]),
        Fault("500", match=texts[10]),
        Fault("slow", seconds=3.0, match=texts[20]),
    ]
    emb = _embedder(server)
    cache = EmbeddingCache(tmp_path / "cache", emb.model_id, emb.dim)
    hashes = [f"h{i}" for i in range(len(texts))]
    vectors, embedded_now = embed_with_cache(emb, cache, hashes, texts)

    assert embedded_now == len(texts) and set(vectors) == set(hashes)
    for h, t in zip(hashes[:40], texts[:40]):  # short texts arrive whole
        assert np.allclose(vectors[h], vector_for(t, 8), atol=1e-6)
    assert server.violations == []
    ok = server.embedded()
    assert max(len(r.inputs) for r in ok) <= 8
    assert max(sum(r.tokens) for r in ok) <= 300 and max(max(r.tokens) for r in ok) <= 50
    assert emb.usage.truncated == 3
    sent_long = [t for r in ok for t in r.inputs if t.startswith("token0_")]
    assert len(sent_long) == 3 and all(len(ENC.encode_ordinary(t)) <= 50 for t in sent_long)
    assert emb.usage.retries == 3  # one each for the 429, the 500 and the timeout
    first, second = [r.at for r in server.requests if texts[0] in r.inputs]
    assert second - first >= 1.0  # Retry-After honoured
    assert emb.usage.tokens == sum(sum(r.tokens) for r in ok)
    cache.close()


def test_second_run_embeds_nothing(server, tmp_path):
    texts = _texts()[:20]
    hashes = [f"h{i}" for i in range(len(texts))]
    emb = _embedder(server)
    cache = EmbeddingCache(tmp_path / "cache", emb.model_id, emb.dim)
    embed_with_cache(emb, cache, hashes, texts)
    cache.close()
    sent = len(server.requests)
    cache = EmbeddingCache(tmp_path / "cache", emb.model_id, emb.dim)
    vectors, embedded_now = embed_with_cache(_embedder(server), cache, hashes, texts)
    assert embedded_now == 0 and len(vectors) == 20 and len(server.requests) == sent


def test_failing_batch_gives_one_error_and_the_rest_is_cached(server, tmp_path):
    texts = _texts()[:40]
    hashes = [f"h{i}" for i in range(len(texts))]
    server.faults += [Fault("500", match=texts[5]) for _ in range(3)]
    emb = _embedder(server, max_retries=2, concurrency=1)
    cache = EmbeddingCache(tmp_path / "cache", emb.model_id, emb.dim)
    with pytest.raises(BatchFailedError, match=r"1 of 5 embedding batches failed after 3 tries") as err:
        embed_with_cache(emb, cache, hashes, texts)
    assert "32 of 40 new texts are cached" in str(err.value)
    before = len(server.embedded())
    vectors, embedded_now = embed_with_cache(_embedder(server), cache, hashes, texts)
    assert embedded_now == 8 and len(vectors) == 40  # only the failed batch is sent again
    assert len(server.embedded()) == before + 1
    cache.close()


def test_bad_key_fails_at_once_without_leaking_it(server, tmp_path):
    emb = _embedder(server, api_key="sk-wrong-secret-key")
    cache = EmbeddingCache(tmp_path / "cache", emb.model_id, emb.dim)
    with pytest.raises(BatchFailedError) as err:
        embed_with_cache(emb, cache, ["a"], ["some text"])
    assert "rejected the API key" in str(err.value) and "sk-wrong-secret-key" not in str(err.value)
    assert len(server.requests) == 1  # a 401 is not retried


def test_missing_key_is_one_error_before_any_request(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY"):
        OpenAIEmbedder(base_url=server.base_url)
    assert server.requests == []


def test_retry_after_date_and_ms_are_read():
    from ltm.embed.openai_api import retry_after_seconds

    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert retry_after_seconds({}) is None
