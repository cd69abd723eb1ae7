"""`ltm memory import` on the command line, and the backfill's place in the ingest job."""

import json

from click.testing import CliRunner
from dagster import AssetKey

from cli import main
from pipelines.definitions import INGEST_JOB, defs


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_import_reports_bad_lines_by_number_and_loads_the_rest(tmp_path):
    f = tmp_path / "notes.jsonl"
    f.write_text(json.dumps({"id": "1", "content": "auth.py needs a lock"}) + "\n{nope\n"
                 + json.dumps({"id": "2", "content": "retry is slow"}) + "\n")
    res = invoke("memory", "import", f, "--home", tmp_path / "home")
    assert res.exit_code == 0, res.output
    assert "line 2: not valid JSON" in res.output and "imported 2 memories" in res.output
    res = invoke("memory", "import", f, "--home", tmp_path / "home", "--json")
    data = json.loads(res.output[res.output.index("{"):])
    assert (data["loaded"], data["skipped"], data["bad_lines"][0]["line"]) == (2, 1, 2)


def test_import_of_a_missing_file_is_one_line_and_non_zero(tmp_path):
    res = invoke("memory", "import", tmp_path / "missing.jsonl", "--format", "tracemem", "--home", tmp_path / "home")
    assert res.exit_code == 3  # input
    assert res.output.strip().count("\n") == 0 and "does not exist" in res.output


def test_backfill_runs_in_the_ingest_job_before_the_graph_build():
    graph = defs.get_repository_def().asset_graph
    job_assets = {k.to_user_string() for k in defs.resolve_job_def(INGEST_JOB).asset_layer.selected_asset_keys}
    assert {"doc_memories", "imported_memories", "memory_links", "graph"} <= job_assets
    assert AssetKey("memory_links") in graph.get(AssetKey("graph")).parent_keys
    assert AssetKey("doc_memories") in graph.get(AssetKey("embeddings")).parent_keys
