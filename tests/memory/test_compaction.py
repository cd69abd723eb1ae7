"""Folding the small files online adds leave: after the add, on a worker, nothing lost."""

import time

from ltm.lake import Lake
from ltm.memory import compaction
from ltm.memory.records import MEMORY_PARTITION
from ltm.query import HybridLTM
from ltm.vectors import VectorStore
from tests.memory.test_pipeline import ingest, ingested  # noqa: F401  (the fixture)


def _parts(lake: Lake, table: str) -> int:
    return len(lake.files(table, MEMORY_PARTITION))


def test_adds_fold_the_partition_and_the_vector_fragments_after_returning(ingested, monkeypatch):  # noqa: F811
    home, _, _, _ = ingested
    monkeypatch.setattr(compaction, "MAX_PARTS", 4)
    monkeypatch.setattr(compaction, "CHECK_EVERY", 1)
    monkeypatch.setattr("ltm.vectors.COMPACT_AFTER_FRAGMENTS", 3)
    lake = Lake(home.lake)
    texts = ["parse_header joins folded lines with one space", "the release train leaves every second Tuesday",
             "benchmarks run on the dedicated bench machine overnight", "tokens signed by a rotated key are rejected",
             "the docs site is built from the main branch only", "flaky network tests are retried twice in CI"]
    with HybridLTM(home.root) as ltm:
        for i, text in enumerate(texts):
            ltm.add(text, {"id": f"n{i}"})
        compaction.wait(home)
        assert _parts(lake, "Memory") < 4 and _parts(lake, "embeddings") < 4  # folded, not 6 + the import's
        ids = set(lake.read("Memory", MEMORY_PARTITION, ["id"]).column("id").to_pylist())
        assert {f"mem:online:n{i}" for i in range(6)} <= ids  # nothing lost in the fold
        assert VectorStore(home.vectors).table().stats()["fragment_stats"]["num_small_fragments"] < 3
        for i, text in enumerate(texts):  # every memory still found, by itself, after both folds
            assert ltm.query(text, strategy="vector_only", top_k=1)[0]["graph_entity_id"] == f"mem:online:n{i}"
    assert not compaction.due(lake, VectorStore(home.vectors))


def _burst(ltm: HybridLTM, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        ltm.add(f"note {i}: the nightly job {i} retries its upload twice", {"id": f"b{i}"})


def test_a_fold_waits_for_a_pause_in_the_adds_then_runs(ingested, monkeypatch):  # noqa: F811
    home, _, _, _ = ingested
    monkeypatch.setattr(compaction, "MAX_PARTS", 4)
    monkeypatch.setattr(compaction, "CHECK_EVERY", 1)
    monkeypatch.setattr(compaction, "OVERDUE", 1000)
    monkeypatch.setattr(compaction, "PAUSE_SECONDS", 3600.0)  # adds never pause that long
    lake = Lake(home.lake)
    with HybridLTM(home.root) as ltm:
        _burst(ltm, 5)
        assert _parts(lake, "Memory") >= 5  # due, but the adds kept coming: nothing folded beside them
        monkeypatch.setattr(compaction, "PAUSE_SECONDS", 0.0)  # the adds pause
        compaction.wait(home, timeout=120)
        assert _parts(lake, "Memory") < 4
        assert {f"mem:online:b{i}" for i in range(5)} <= set(lake.read("Memory", MEMORY_PARTITION, ["id"]).column("id").to_pylist())


def test_an_overdue_fold_runs_though_the_adds_never_pause(ingested, monkeypatch):  # noqa: F811
    home, _, _, _ = ingested
    monkeypatch.setattr(compaction, "MAX_PARTS", 4)
    monkeypatch.setattr(compaction, "CHECK_EVERY", 1)
    monkeypatch.setattr(compaction, "OVERDUE", 2)
    monkeypatch.setattr(compaction, "PAUSE_SECONDS", 3600.0)
    lake = Lake(home.lake)
    with HybridLTM(home.root) as ltm:
        _burst(ltm, 9)  # twice the limit: folded without a pause
        deadline = time.monotonic() + 120
        while _parts(lake, "Memory") >= 8 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _parts(lake, "Memory") < 8
        monkeypatch.setattr(compaction, "PAUSE_SECONDS", 0.0)  # a fold queued meanwhile runs now, not at exit
        compaction.wait(home, timeout=120)
