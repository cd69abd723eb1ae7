from pathlib import Path

import pytest

from tests.builder import RepoBuilder, sample_repo
from tests.reliability.harness import Scenario


@pytest.fixture
def two_versions(tmp_path: Path):
    """The sample repository (v1) and a function to grow it into v2 (one more commit, more code)."""
    b = sample_repo(tmp_path / "sample")

    def grow() -> RepoBuilder:
        body = "".join(f"def helper_{i}(x):\n    \"\"\"Helper number {i}.\"\"\"\n    return x + {i}\n\n" for i in range(40))
        b.write("app/helpers.py", body).commit("Add forty helpers")
        return b

    return b, grow


@pytest.fixture
def scenario(two_versions, tmp_path: Path) -> Scenario:
    """A home and the sample repository at v1, grown to v2 by `scenario.start()`."""
    return Scenario(*two_versions, tmp_path)
