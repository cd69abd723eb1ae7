"""Sensory memories and expiry: an expired memory is never answered, even before maintenance; the
`maintenance` asset removes it from the lake and the vectors and counts it; an import skips an
entry that has already expired; working and sensory memories get a default time to live."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import polars as pl
from dagster import materialize

from assets import MAINTENANCE_ASSETS
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.store import import_memories
from ltm.query import HybridLTM
from ltm.reconcile import reconcile
from ltm.vectors import VectorStore
from resources import HomeResource
from tests.builder import sample_repo
from tests.test_cli import run

STRATEGIES = ("vector_first", "graph_first", "parallel", "vector_only", "graph_only")


def _ids(hits) -> set[str]:
    out = {h["graph_entity_id"] for h in hits}
    for h in hits:
        out |= {n["id"] for n in h.get("neighbours", ())}
    return out


def _lake_memories(home: Home) -> pl.DataFrame:
    return pl.from_arrow(Lake(home.lake).read("Memory", MEMORY_PARTITION))


def test_an_expired_working_memory_is_not_answered_and_maintenance_removes_it(tmp_path):
    repo = sample_repo(tmp_path / "sample")
    home_dir = tmp_path / "home"
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    home = Home.resolve(home_dir)
    soon = datetime.now(timezone.utc) + timedelta(seconds=4)
    text = "working note: retry is being rewritten with jitter right now"
    with HybridLTM(home) as ltm:
        ltm.add(text, {"id": "w1", "memory_type": "working", "expires_at": soon.isoformat(), "file_path": "app/util.py"})
        ltm.add("retry() must back off exponentially", {"id": "keep", "memory_type": "semantic", "file_path": "app/util.py"})
        for strategy in STRATEGIES:  # before it expires, every strategy finds it
            assert "mem:online:w1" in _ids(ltm.query(text, strategy=strategy, top_k=10)), strategy
        time.sleep(max(0.0, (soon - datetime.now(timezone.utc)).total_seconds()) + 0.5)
        for strategy in STRATEGIES:  # expired: no strategy returns it, nor shows it beside retry
            found = _ids(ltm.query(text, strategy=strategy, top_k=10, depth=2))
            assert "mem:online:w1" not in found and "mem:online:keep" in found, strategy
    assert "mem:online:w1" in _lake_memories(home)["id"].to_list()  # still stored until maintenance runs
    assert reconcile(home.graph, home.vectors).ok

    result = materialize(MAINTENANCE_ASSETS, resources={"home": HomeResource(path=str(home_dir))})
    meta = result.asset_materializations_for_node("maintenance")[0].metadata
    assert meta["memories_expired"].value == 1
    left = _lake_memories(home)["id"].to_list()
    assert "mem:online:w1" not in left and "mem:online:keep" in left
    assert "mem:online:w1" not in VectorStore(home.vectors).links().values()
    assert reconcile(home.graph, home.vectors).ok  # the build still holds the node, the row is gone: in step
    links = pl.from_arrow(Lake(home.lake).read("RELATES_TO_FUNCTION", MEMORY_PARTITION))
    assert "mem:online:w1" not in links["src"].to_list() and "mem:online:keep" in links["src"].to_list()
    # the next build no longer holds it
    run("ingest", repo.path, "--home", home_dir, "--embedder", "hash")
    with HybridLTM(home) as ltm:
        assert "mem:online:w1" not in _ids(ltm.query(text, strategy="graph_only", top_k=10))
    again = materialize(MAINTENANCE_ASSETS, resources={"home": HomeResource(path=str(home_dir))})
    assert again.asset_materializations_for_node("maintenance")[0].metadata["memories_expired"].value == 0


def test_sensory_and_working_memories_get_a_default_ttl_and_an_expired_entry_is_not_imported(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    home.update_settings(embedder="hash")
    now = datetime.now(timezone.utc)
    src = tmp_path / "m.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in [
        {"id": "seen", "content": "the build log shows 3 warnings", "memory_type": "sensory",
         "metadata": {"created_at": now.isoformat()}},
        {"id": "stale", "content": "editing auth.py line 40", "memory_type": "working",
         "metadata": {"created_at": (now - timedelta(days=3)).isoformat()}},
        {"id": "pinned", "content": "keep this working note", "memory_type": "working",
         "metadata": {"expires_at": (now + timedelta(days=30)).isoformat(), "created_at": (now - timedelta(days=3)).isoformat()}},
        {"id": "fact", "content": "auth.py validates tokens", "memory_type": "semantic",
         "metadata": {"created_at": (now - timedelta(days=300)).isoformat()}},
    ]) + "\n")
    report = import_memories(home, src, "jsonl")
    assert (report.loaded, report.expired, report.skipped) == (3, 1, [])
    rows = {r["id"]: r for r in _lake_memories(home).to_dicts()}
    assert set(rows) == {"mem:jsonl:seen", "mem:jsonl:pinned", "mem:jsonl:fact"}
    seen = rows["mem:jsonl:seen"]
    assert seen["memory_type"] == "sensory"
    assert abs((seen["expires_at"] - now - timedelta(hours=1)).total_seconds()) < 5  # the sensory default: 1 hour
    assert rows["mem:jsonl:pinned"]["expires_at"] > now + timedelta(days=29)  # its own expires_at wins
    assert rows["mem:jsonl:fact"]["expires_at"] is None  # semantic memories never expire
    # a TTL from the settings replaces the default
    home.update_settings(other={"memory_ttl_hours": {"sensory": 48}})
    import_memories(home, src, "jsonl")
    seen = {r["id"]: r for r in _lake_memories(home).to_dicts()}["mem:jsonl:seen"]
    assert abs((seen["expires_at"] - now - timedelta(hours=48)).total_seconds()) < 5
    out = json.loads(run("memory", "import", src, "--json", "--home", home.root).output)
    assert (out["loaded"], out["expired"]) == (3, 1)


def test_a_bad_expiry_or_private_without_agent_is_that_lines_error(tmp_path):
    home = Home.resolve(tmp_path / "home").create()
    src = tmp_path / "m.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in [
        {"id": "a", "content": "x", "metadata": {"expires_at": "tomorrow"}},
        {"id": "b", "content": "y", "metadata": {"private": True}},
        {"id": "c", "content": "z", "memory_type": "sensory"},
    ]) + "\n")
    report = import_memories(home, src, "jsonl")
    assert report.loaded == 1
    assert "expires_at 'tomorrow' is not an ISO 8601 time" in dict(report.skipped)[1]
    assert any("mem:jsonl:b: a private memory needs an agent_id" in e for _, e in report.skipped)
    assert len(report.skipped) == 2
    # the import's agent owns it
    report = import_memories(home, src, "jsonl", agent_id="ada")
    assert report.loaded == 2 and len(report.skipped) == 1
