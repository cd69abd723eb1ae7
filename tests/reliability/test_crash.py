"""kill -9 of a running ingest: during the graph build, the vector write and the embedding.

Each case ingests v1, grows the repository to v2, starts an ingest of v2 that stalls at a known
point (tests/reliability/driver.py), SIGKILLs it there, and then checks what a user would see:
readers still answer from the previous state, the next ingest completes, reconciliation is clean,
and the home's content equals a fresh home built from v2 (nothing duplicated, nothing lost).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.reliability.harness import graph_snapshot, kill9, ltm, snapshot, stats, vector_snapshot, wait_for


def test_kill9_during_graph_build_keeps_the_old_graph_and_recovers(scenario):
    kill9(scenario.start().stalled("graph"))
    # Between the crash and the next run: the old graph and the old vectors serve, still linked.
    scenario.serves_v1()
    assert json.loads(ltm("query", "token signature", "--json", "--home", scenario.home).stdout)
    scenario.recovers()
    assert stats(scenario.home)["nodes"]["Function"] == scenario.v1_stats["nodes"]["Function"] + 40


@pytest.mark.slow
def test_kill9_during_vector_write_keeps_the_old_rows_and_recovers(scenario):
    kill9(scenario.start().stalled("vectors"))
    # LanceDB commits a merge_insert as one new table version: the killed write left the old rows.
    assert vector_snapshot(scenario.home) == {"vectors": scenario.v1["vectors"]}
    # The graph had already switched to v2 (graph runs before vectors): reconciliation says
    # exactly which nodes wait for their rows, and nothing else.
    report = json.loads(ltm("reconcile", "--json", "--home", scenario.home, check=False).stdout)
    assert report["ok"] is False
    assert report["orphan_counts"] == {
        "nodes_without_vector_row": 40 + 1 + 1,  # the helpers, their module, the new commit
        "vector_rows_without_node": 0, "node_to_row_mismatch": 0, "row_to_node_mismatch": 0,
    }
    assert json.loads(ltm("query", "token signature", "--json", "--home", scenario.home).stdout)
    scenario.recovers()


def test_kill9_during_embedding_resumes_from_the_cache(scenario):
    kill9(scenario.start().stalled("embedding"))
    # The extraction stages had committed v2 to the lake; the embeddings table, the graph and the
    # vectors are still v1's, and linked.
    assert snapshot(scenario.home)["lake/embeddings"] == scenario.v1["lake/embeddings"]
    scenario.serves_v1()
    res = scenario.recovers()
    # v2 has 42 new texts; two batches of 4 were committed to the cache before the kill.
    embedded_now = int(re.search(r"^\s*embeddings\s.*?embedded_now=(\d+)", res.stderr, re.M).group(1))
    assert embedded_now == 42 - 8, res.stderr


@pytest.mark.slow
def test_kill9_of_plain_ltm_ingest_when_its_build_appears(scenario):
    """No hook at all: SIGKILL `ltm ingest` the moment its new graph build shows up on disk."""
    scenario.start()
    builds = scenario.home / "graph" / "builds"
    before = set(builds.iterdir())
    proc = scenario.plain()
    wait_for(lambda: set(builds.iterdir()) - before or proc.poll() is not None, 240, "a new graph build", every=0.002)
    kill9(proc)
    # Whatever instant the kill hit, readers see one complete build: v1's, or v2's if it had switched.
    v1_graph = {k: v for k, v in scenario.v1.items() if k.startswith("graph/")}
    assert graph_snapshot(scenario.home) == v1_graph or graph_snapshot(scenario.home, link_times=False) == (
        graph_snapshot(scenario.reference(), link_times=False))
    scenario.recovers()
