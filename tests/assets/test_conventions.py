"""What a data team reads on an asset's page: row counts, column schemas and code versions."""

import shutil

from dagster import AssetKey

from assets.versions import QUERIES, code_version, files_version
from pipelines.definitions import defs
from tests.assets.test_materialize import materialize_sample

# the sample repository (tests/builder.py): 2 commits, 6 functions, 2 classes, 3 modules, one README heading
COMMITS, FUNCTIONS, CLASSES, MODULES, DOCS = 2, 6, 2, 3, 1
VECTORS = COMMITS + FUNCTIONS + CLASSES + MODULES + DOCS


def test_each_table_asset_reports_its_rows_under_the_standard_key(repo, home_dir):
    _, instance, result = materialize_sample(repo, home_dir)

    def rows(asset: str) -> int:
        [mat] = result.asset_materializations_for_node(asset)
        return mat.metadata["dagster/row_count"].value

    assert rows("commits") == COMMITS
    assert rows("code_entities") == FUNCTIONS
    assert rows("doc_memories") == DOCS
    assert rows("embeddings") == VECTORS
    assert rows("vectors") == VECTORS
    assert rows("graph") > FUNCTIONS + CLASSES + MODULES + COMMITS  # plus files, the repository, memories
    assert rows("bugs") == 0  # the sample repository has no fix commit

    # the code version in force is recorded on each materialization (what "stale" compares against)
    graph = defs.get_repository_def().asset_graph
    for event in result.get_asset_materialization_events():
        name = event.asset_key.to_user_string()
        recorded = instance.get_latest_materialization_event(event.asset_key).tags["dagster/code_version"]
        assert recorded == graph.get(AssetKey(name)).code_version, name


def test_the_lake_tables_column_schemas_are_on_the_assets():
    graph = defs.get_repository_def().asset_graph

    def schema(asset: str):
        value = graph.get(AssetKey(asset)).metadata["dagster/column_schema"]
        return getattr(value, "schema", value)  # a TableSchema, or its metadata value once normalized

    def columns(asset: str) -> dict[str, str]:
        return {c.name: c.type for c in schema(asset).columns}

    assert {"sha", "author_name", "committed_at", "message"} <= set(columns("commits"))
    assert {"qualified_name", "file_path", "line_start", "signature"} <= set(columns("code_entities"))
    assert columns("embeddings")["vector"] == "list<item: float>"
    assert columns("code_entities")["line_start"] == "int32"
    assert columns("vectors")["vector"] == "fixed_size_list<float>[model dimension]"
    assert {"graph_entity_id", "content", "category"} <= set(columns("vectors"))
    nullable = {c.name: c.constraints.nullable for c in schema("embeddings").columns}
    assert nullable["vector_id"] is False


def test_every_asset_has_a_code_version_that_follows_its_source(tmp_path):
    graph = defs.get_repository_def().asset_graph
    versions = {k.to_user_string(): graph.get(k).code_version for k in graph.get_all_asset_keys()}
    assert all(versions.values()), versions
    assert len(set(versions.values())) == len(versions)  # each follows its own source

    # a changed query file changes the version (a copy of the queries, one file edited)
    copy = tmp_path / "queries"
    shutil.copytree(QUERIES, copy)
    before = files_version(copy.glob("*.scm"))
    assert before == files_version(sorted(copy.glob("*.scm"), reverse=True))  # order does not matter
    python = copy / "python.scm"
    python.write_text(python.read_text() + "\n; one more comment\n")
    assert files_version(copy.glob("*.scm")) != before
    assert code_version("ltm.stages.code", queries=True) != code_version("ltm.stages.code")
