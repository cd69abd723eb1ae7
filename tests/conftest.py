import os
from pathlib import Path

import pytest

from tests.builder import RepoBuilder, sample_repo

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def repo(tmp_path: Path) -> RepoBuilder:
    """The two-commit sample repository."""
    return sample_repo(tmp_path / "sample")


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    return tmp_path / "home"
