import os
from pathlib import Path

import pytest

from tests.builder import RepoBuilder, sample_repo
from tests.embed.openai_server import KEY, FakeOpenAI

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def repo(tmp_path: Path) -> RepoBuilder:
    """The two-commit sample repository."""
    return sample_repo(tmp_path / "sample")


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def server(monkeypatch):
    """The OpenAI-compatible server on 127.0.0.1, with the client's environment pointing at it
    (the embedding tests and the step-retry tests share it)."""
    s = FakeOpenAI().start()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", s.base_url)
    yield s
    s.stop()
