import pytest

from ltm.home import Home
from ltm.query import HybridLTM
from tests.retrieval.fixture import build_repo, ingest


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Home, dict[str, str]]:
    """One home with the fixture repository `svc` and a second repository `other`; the commit shas."""
    root = tmp_path_factory.mktemp("retrieval")
    shas = build_repo(root / "svc")
    home = Home(root / "home")
    ingest(home, root / "svc", shas=shas)
    other = build_repo(root / "other")
    assert other == shas  # same content, authors and dates: the same commits in another repository
    ingest(home, root / "other", extra=False, shas=other)
    return home, shas


@pytest.fixture
def fixture_home(built) -> Home:
    return built[0]


@pytest.fixture
def shas(built) -> dict[str, str]:
    return built[1]


@pytest.fixture
def memory(fixture_home: Home):
    with HybridLTM(fixture_home) as m:
        yield m


def ids_of(hits) -> list[str]:
    return [h["graph_entity_id"] for h in hits]

