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

from tests.reliability.harness import (
    assert_reconciled,
    graph_snapshot,
    kill9,
    leftovers,
    ltm,
    snapshot,
    start_stalled,
    stats,
    vector_ids,
    vector_snapshot,
    wait_for,
)


def _ingest(path, home):
    return ltm("ingest", path, "--home", home, "--embedder", "hash")


def _reference(path, tmp_path):
    ref = tmp_path / "reference"
    _ingest(path, ref)
    return ref


def _crash_then_recover(two_versions, tmp_path, fault):
    b, grow = two_versions
    home = tmp_path / "home"
    _ingest(b.path, home)
    v1, v1_stats = snapshot(home), stats(home)
    grow()
    proc = start_stalled(fault, "ingest", b.path, "--home", home, "--embedder", "hash", marker=tmp_path / "stalled")
    kill9(proc)
    return b, home, v1, v1_stats


def test_kill9_during_graph_build_keeps_the_old_graph_and_recovers(two_versions, tmp_path):
    b, home, v1, v1_stats = _crash_then_recover(two_versions, tmp_path, "graph")
    # Between the crash and the next run: the old graph and the old vectors serve, still linked.
    assert stats(home) == v1_stats
    assert graph_snapshot(home) == {k: v for k, v in v1.items() if k.startswith("graph/")}
    assert vector_snapshot(home) == {"vectors": v1["vectors"]}
    assert_reconciled(home)
    assert json.loads(ltm("query", "token signature", "--json", "--home", home).stdout)
    _ingest(b.path, home)
    assert snapshot(home) == snapshot(_reference(b.path, tmp_path))
    assert stats(home)["nodes"]["Function"] == v1_stats["nodes"]["Function"] + 40
    assert_reconciled(home)
    assert not any(p.startswith("graph/") for p in leftovers(home)), leftovers(home)


@pytest.mark.slow
def test_kill9_during_vector_write_keeps_the_old_rows_and_recovers(two_versions, tmp_path):
    b, home, v1, v1_stats = _crash_then_recover(two_versions, tmp_path, "vectors")
    # LanceDB commits a merge_insert as one new table version: the killed write left the old rows.
    assert vector_snapshot(home) == {"vectors": v1["vectors"]}
    # The graph had already switched to v2 (graph runs before vectors): reconciliation says
    # exactly which nodes wait for their rows, and nothing else.
    report = json.loads(ltm("reconcile", "--json", "--home", home, check=False).stdout)
    assert report["ok"] is False
    assert report["orphan_counts"] == {
        "nodes_without_vector_row": 40 + 1 + 1,  # the helpers, their module, the new commit
        "vector_rows_without_node": 0, "node_to_row_mismatch": 0, "row_to_node_mismatch": 0,
    }
    assert json.loads(ltm("query", "token signature", "--json", "--home", home).stdout)
    _ingest(b.path, home)
    assert snapshot(home) == snapshot(_reference(b.path, tmp_path))
    assert_reconciled(home)


def test_kill9_during_embedding_resumes_from_the_cache(two_versions, tmp_path):
    b, home, v1, v1_stats = _crash_then_recover(two_versions, tmp_path, "embedding")
    # The extraction stages had committed v2 to the lake; the embeddings table, the graph and the
    # vectors are still v1's, and linked.
    after = snapshot(home)
    assert {k: after[k] for k in after if not k.startswith("lake/") or k == "lake/embeddings"} == {
        k: v1[k] for k in v1 if not k.startswith("lake/") or k == "lake/embeddings"
    }
    assert_reconciled(home)
    res = _ingest(b.path, home)
    # v2 has 42 new texts; two batches of 4 were committed to the cache before the kill.
    embedded_now = int(re.search(r"^\s*embeddings\s.*?embedded_now=(\d+)", res.stderr, re.M).group(1))
    assert embedded_now == 42 - 8, res.stderr
    assert snapshot(home) == snapshot(_reference(b.path, tmp_path))
    assert_reconciled(home)


@pytest.mark.slow
def test_kill9_of_plain_ltm_ingest_when_its_build_appears(two_versions, tmp_path):
    """No hook at all: SIGKILL `ltm ingest` the moment its new graph build shows up on disk."""
    import subprocess
    import sys

    from tests.reliability.harness import ROOT, env

    b, grow = two_versions
    home = tmp_path / "home"
    _ingest(b.path, home)
    v1_graph = graph_snapshot(home)
    builds_before = set((home / "graph" / "builds").iterdir())
    grow()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ltm.cli", "ingest", str(b.path), "--home", str(home)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(), cwd=ROOT,
    )
    wait_for(lambda: set((home / "graph" / "builds").iterdir()) - builds_before or proc.poll() is not None,
             240, "a new graph build", every=0.002)
    kill9(proc)
    # Whatever instant the kill hit, readers see one complete build: v1's, or v2's if it had switched.
    assert graph_snapshot(home) in (v1_graph, graph_snapshot(_reference(b.path, tmp_path)))
    _ingest(b.path, home)
    assert snapshot(home) == snapshot(tmp_path / "reference")
    assert_reconciled(home)
