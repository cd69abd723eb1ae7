"""The home-wide vectors step upserts only the repositories whose lake changed, and repairs rows
that went missing from the table even when the lake did not change."""

from ltm.home import Home
from ltm.lake import Lake
from ltm.repos import register_local
from ltm.vector_sync import STATE_FILE, sync_vectors
from ltm.vectors import VectorStore
from pipelines.run import ingest_partitions
from tests.builder import RepoBuilder


def _repo(root, name: str) -> RepoBuilder:
    b = RepoBuilder(root / name)
    b.write(f"{name}/route.py", f"def {name}_route(stops):\n    return sorted(stops)\n").commit(f"Add {name} route")
    return b


def test_only_the_changed_repository_is_upserted_and_lost_rows_come_back(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    home.update_settings(embedder="hash")
    alpha, beta = _repo(tmp_path, "alpha"), _repo(tmp_path, "beta")
    keys = [register_local(home, b.path) for b in (alpha, beta)]
    first = ingest_partitions(home, keys, "hash")
    assert first[0].metadata["vectors"]["repos_upserted"] == ["alpha", "beta"]

    beta.write("beta/more.py", "def beta_extra(x):\n    return x\n").commit("Add beta extra")
    [again] = ingest_partitions(home, ["beta"], "hash")
    vectors = again.metadata["vectors"]
    assert vectors["repos_upserted"] == ["beta"] and vectors["repos_unchanged"] == ["alpha"]
    store = VectorStore(home.vectors)
    assert store.table().count_rows("repo = 'beta'") == vectors["rows"] > 0

    alpha_rows = store.table().count_rows("repo = 'alpha'")
    store.table().delete("repo = 'alpha'")  # rows lost behind the lake's back
    stats = sync_vectors(Lake(home.lake), store, keys, home.cache)
    assert sorted(stats.upserted) == ["alpha"] and stats.unchanged == ["beta"]
    assert store.table().count_rows("repo = 'alpha'") == alpha_rows

    (home.cache / STATE_FILE).unlink()  # a cache: without it every repository is upserted again
    assert sorted(sync_vectors(Lake(home.lake), store, keys, home.cache).upserted) == ["alpha", "beta"]
