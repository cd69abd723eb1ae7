"""The `openai` provider inside the real pipeline (Dagster in-process), and switching models."""

import json

import pytest
from click.testing import CliRunner
from dagster import DagsterInstance, Failure, materialize

from assets.stores import embeddings
from cli import main
from ltm.errors import DimensionMismatchError
from ltm.home import Home
from ltm.lake import Lake
from ltm.vectors import VectorStore
from pipelines.run import ingest_partitions
from resources import EmbedderResource, HomeResource
from tests.embed.openai_server import KEY, Fault

SAMPLE_VECTORS = 2 + 6 + 2 + 3 + 1  # commits, functions, classes, modules, README doc memory (sample_repo)


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _ingest(repo, home_dir, embedder):
    home = Home.resolve(home_dir).create()
    from ltm.repos import register_local

    key = register_local(home, repo.path)
    home.update_settings(embedder=embedder)
    [summary] = ingest_partitions(home, [key], embedder)
    return home, key, summary.metadata


def test_ingest_records_tokens_and_cost_and_a_second_run_embeds_nothing(repo, home_dir, server):
    home, key, meta = _ingest(repo, home_dir, "openai")
    emb = meta["embeddings"]
    sent_tokens = sum(sum(r.tokens) for r in server.embedded())
    assert emb["embedded_now"] == SAMPLE_VECTORS and emb["model"] == "text-embedding-3-small" and emb["dim"] == 1536
    assert emb["tokens"] == sent_tokens > 0
    assert emb["cost_usd"] == pytest.approx(sent_tokens * 0.02 / 1_000_000)
    assert KEY not in json.dumps(meta, default=str)
    assert VectorStore(home.vectors).count() == SAMPLE_VECTORS
    requests = len(server.requests)
    _, _, meta2 = _ingest(repo, home_dir, "openai")
    assert meta2["embeddings"]["embedded_now"] == 0 and meta2["embeddings"]["cache_hits"] == SAMPLE_VECTORS
    assert meta2["embeddings"]["tokens"] == 0 and len(server.requests) == requests


def test_other_dimension_is_refused_before_any_request_and_nothing_changes(repo, home_dir, server):
    home, key, _ = _ingest(repo, home_dir, "openai")
    lake_before = Lake(home.lake).read("embeddings", key)
    requests = len(server.requests)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", [key])
    h = HomeResource(path=str(home_dir))
    with pytest.raises(Failure, match="dimension 1536") as failed:  # not retried: a retry cannot fix it
        materialize([embeddings], partition_key=key, instance=instance,
                    resources={"home": h, "embedder": EmbedderResource(home=h, provider="openai", dimensions=256)})
    assert isinstance(failed.value.__cause__, DimensionMismatchError)
    assert len(server.requests) == requests
    assert Lake(home.lake).read("embeddings", key).equals(lake_before)
    assert VectorStore(home.vectors).model()["dim"] == 1536 and VectorStore(home.vectors).count() == SAMPLE_VECTORS


def test_missing_key_is_one_line_before_the_home_is_touched(repo, home_dir, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res = _cli("ingest", repo.path, "--home", home_dir, "--embedder", "openai")
    assert res.exit_code != 0 and "OPENAI_API_KEY" in res.output
    assert len(res.output.strip().splitlines()) == 1 and not home_dir.exists()


def test_reembed_switches_readers_only_when_the_new_table_is_complete(repo, home_dir, server):
    home, key, _ = _ingest(repo, home_dir, "hash")
    assert VectorStore(home.vectors).model()["model"] == "hash-64"
    server.faults += [Fault("401")]  # the first attempt fails: readers must stay on hash-64
    res = _cli("reembed", "--embedder", "openai", "--dimensions", "32", "--home", home_dir)
    assert res.exit_code != 0 and "rejected the API key" in res.output
    store = VectorStore(home.vectors)
    assert store.model()["model"] == "hash-64" and store.count() == SAMPLE_VECTORS
    hits = json.loads(_cli("query", "validate the token signature", "--json", "--home", home_dir).output)
    assert hits  # still answered from the old table

    res = _cli("reembed", "--embedder", "openai", "--dimensions", "32", "--home", home_dir)
    assert res.exit_code == 0, res.output
    meta = VectorStore(home.vectors).model()
    assert (meta["model"], meta["dim"]) == ("text-embedding-3-small@32", 32)
    assert VectorStore(home.vectors).count() == SAMPLE_VECTORS
    report = json.loads(_cli("reconcile", "--json", "--home", home_dir).output)
    assert report["ok"] is True and report["vector_rows"] == SAMPLE_VECTORS
    hits = json.loads(_cli("query", "validate the token signature", "--json", "--home", home_dir).output)
    assert len(hits) == 5
    # the next ingest keeps the switched model: nothing re-embedded, nothing refused
    res = _cli("ingest", repo.path, "--home", home_dir)
    assert res.exit_code == 0, res.output
    assert VectorStore(home.vectors).model()["model"] == "text-embedding-3-small@32"
