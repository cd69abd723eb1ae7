"""The `bugs` asset in a real run: Bug nodes, their edges and defect signals in the Kuzu graph."""

import json

from dagster import DagsterInstance, materialize

from assets import ALL_ASSETS
from ltm.graph.engine import query
from ltm.graph.read import open_current
from ltm.home import Home
from ltm.repos import register_local
from resources import EmbedderResource, HomeResource, KuzuGraphResource, LanceVectorsResource, MemorySourcesResource
from tests.stages.test_bugs import _history


def test_bugs_asset_puts_fixes_affects_szz_and_signals_in_the_graph(tmp_path):
    b, shas = _history(tmp_path / "repo")
    home_dir = tmp_path / "home"
    home = Home.resolve(home_dir).create()
    key = register_local(home, b.path)
    issues = tmp_path / "issues.jsonl"
    issues.write_text(json.dumps({"number": 12, "title": "Blank-padded tokens refused", "labels": ["bug"],
                                  "created_at": "2024-01-01T00:00:00Z"}) + "\n{broken\n", encoding="utf-8")
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    h = HomeResource(path=str(home_dir))
    result = materialize(
        ALL_ASSETS, partition_key=key, instance=instance,
        resources={"home": h, "embedder": EmbedderResource(home=h, provider="hash"),
                   "kuzu": KuzuGraphResource(home=h), "lance": LanceVectorsResource(home=h),
                   "memory_sources": MemorySourcesResource()},
        run_config={"ops": {"bugs": {"config": {"issues_path": str(issues)}}}},
    )
    assert result.success
    meta = result.asset_materializations_for_node("bugs")[0].metadata
    assert meta["rows_Bug"].value == 4 and meta["bad_issue_lines"].value == 1
    with open_current(home.graph) as conn:
        [[title, name, intro, fn]] = query(conn, """
            MATCH (c:Commit)-[:FIXES]->(b:Bug)-[:AFFECTS]->(f:Function), (b)-[i:INTRODUCED_BY]->(x:Commit)
            WHERE b.ref = $ref RETURN b.title, f.name, x.sha, i.function_name""", {"ref": "#12"})
        assert (title, name, intro, fn) == ("Blank-padded tokens refused", "validate", shas["B"], "validate")
        [[fixes, introduced, churn]] = query(
            conn, "MATCH (f:Function) WHERE f.name = $n RETURN f.fix_count, f.bugs_introduced, f.churn", {"n": "validate"})
        assert (fixes, introduced) == (1, 1)
        # validate's history from MODIFIES: A adds its 5 lines, B changes 1 (+1 -1), the fix D
        # replaces 1 line with 2 (+2 -1): 5 + 2 + 3.
        assert churn == 10
        assert query(conn, "MATCH (f:Function) WHERE f.name = $n RETURN f.fix_count", {"n": "load"}) == [[1]]
    checks = {e.check_name: e.passed for e in result.get_asset_check_evaluations()}
    assert all(checks.values())


def test_a_second_run_of_the_bugs_asset_blames_only_new_fixes(tmp_path):
    from assets import bugs, commits

    b, shas = _history(tmp_path / "repo")
    home_dir = tmp_path / "home"
    key = register_local(Home.resolve(home_dir).create(), b.path)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])

    def run():
        res = materialize([commits, bugs], partition_key=key, instance=instance,
                          resources={"home": HomeResource(path=str(home_dir))})
        meta = res.asset_materializations_for_node("bugs")[0].metadata
        return meta["mode"].value, meta["fixes_blamed"].value, meta["rows_Bug"].value

    assert run() == ("full", 4, 4)
    assert run() == ("up_to_date", 0, 4)
    b.write("app/auth.py", "def validate(token, secret):\n    return bool(token) and token == secret\n")
    b.commit("Refuse empty tokens, fixes #30")
    assert run() == ("incremental", 1, 5)
