"""The assets run for real with `materialize` over one `repos` partition."""

from dagster import DagsterInstance, materialize

from assets import ALL_ASSETS
from ltm.graph.read import open_current
from ltm.graph.engine import query
from ltm.home import Home
from ltm.repos import register_local
from resources import EmbedderResource, HomeResource, KuzuGraphResource, LanceVectorsResource, MemorySourcesResource


def _resources(home: str, memory_sources: list[str] | None = None):
    h = HomeResource(path=home)
    return {
        "home": h,
        "embedder": EmbedderResource(home=h, provider="hash"),
        "kuzu": KuzuGraphResource(home=h),
        "lance": LanceVectorsResource(home=h),
        "memory_sources": MemorySourcesResource(sources=memory_sources or []),
    }


def materialize_sample(repo, home_dir):
    """Every asset over the sample repository's partition in a new home: (home, instance, result)."""
    home = Home.resolve(home_dir).create()
    key = register_local(home, repo.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    result = materialize(ALL_ASSETS, partition_key=key, instance=instance, resources=_resources(str(home_dir)))
    assert result.success
    return home, instance, result


def test_materialize_one_partition_builds_graph_vectors_and_passing_checks(repo, home_dir):
    home, _, result = materialize_sample(repo, home_dir)
    checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert checks == {"graph_nodes_have_vector_rows": True, "vector_rows_have_graph_nodes": True}
    commits_meta = result.asset_materializations_for_node("commits")[0].metadata
    assert commits_meta["commits"].value == 2
    with open_current(home.graph) as conn:
        rows = query(conn, "MATCH (c:Class)-[:HAS_METHOD]->(f:Function) WHERE c.name = $n RETURN f.name ORDER BY f.name",
                     {"n": "Validator"})
        assert [r[0] for r in rows] == ["__init__", "_sign", "validate_token"]
        [[author]] = query(conn, "MATCH (p:Commit)-[:PARENT_OF]->(c:Commit) RETURN c.author_name")
        assert author == "Grace Hopper"
