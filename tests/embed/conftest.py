"""The OpenAI-compatible server on 127.0.0.1 the embedding tests share, with the client's
environment pointing at it."""

import pytest

from tests.embed.openai_server import KEY, FakeOpenAI


@pytest.fixture
def server(monkeypatch):
    s = FakeOpenAI().start()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
    yield s
    s.stop()
