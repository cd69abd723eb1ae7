"""Which embedder: one rule for a run, for the Dagster resource, for an online add and for a query."""

import json

import pytest

from ltm.embed.registry import EmbedderOptions, embedder_for_home, embedder_for_model, provider_for_run
from ltm.errors import EmbeddingError, HomeError
from ltm.home import Home
from ltm.query import HybridLTM
from ltm.settings import HomeSettings, MemorySource
from ltm.vectors import VectorStore
from resources import EmbedderResource, HomeResource


def test_online_add_uses_the_model_and_dimension_the_home_records_like_the_pipeline(home_dir, server):
    home = Home.resolve(home_dir).create()
    home.update_settings(embedder="openai", embedder_model="m-test", embedder_dimensions=8)
    pipeline = EmbedderResource(home=HomeResource(path=str(home_dir))).embedder()
    HybridLTM(home).add("parse_header must accept folded lines", {"id": "m1"})
    table = VectorStore(home.vectors).model()
    assert (table["model"], table["dim"]) == ("m-test@8", 8)
    assert (pipeline.model_id, pipeline.dim) == ("m-test@8", 8)
    assert [r.dimensions for r in server.embedded()] == [8]


def test_a_run_keeps_the_provider_the_home_recorded(home_dir, monkeypatch):
    home = Home.resolve(home_dir)
    assert provider_for_run(home, None, "ingest") == "local"  # a new home
    home.create().update_settings(embedder="hash")
    assert provider_for_run(home, None, "ingest") == "hash"
    with pytest.raises(EmbeddingError, match="was built with --embedder hash; backfill with the same embedder"):
        provider_for_run(home, "static", "backfill")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbeddingError, match="needs an API key: set OPENAI_API_KEY"):
        provider_for_run(Home.resolve(home_dir.parent / "other"), "openai", "ingest")


def test_options_override_the_home_and_apply_only_to_their_provider(home_dir):
    home = Home.resolve(home_dir).create()
    home.update_settings(embedder="hash", embedder_model="m-test", embedder_dimensions=8)
    assert embedder_for_home(home).model_id == "hash-64"  # model and dimension are the openai provider's
    assert embedder_for_home(home, EmbedderOptions(batch_size=5, threads=2)).model_id == "hash-64"
    assert embedder_for_model("hash-16", 16).dim == 16


def test_settings_round_trip_keeps_keys_it_does_not_know(home_dir):
    home = Home.resolve(home_dir).create()
    home.settings_path.write_text(json.dumps({"embedder": "hash", "ranking": {"GRAPH_WEIGHT": 0.3}, "note": "x"}))
    home.update_settings(memory_sources=(MemorySource("jsonl", "/m.jsonl"),))
    got = home.settings()
    assert got == HomeSettings(embedder="hash", ranking={"GRAPH_WEIGHT": 0.3},
                               memory_sources=(MemorySource("jsonl", "/m.jsonl"),), other={"note": "x"})
    assert json.loads(home.settings_path.read_text())["memory_sources"] == [{"format": "jsonl", "path": "/m.jsonl"}]


def test_a_corrupt_settings_file_is_an_error_not_empty_settings(home_dir):
    home = Home.resolve(home_dir).create()
    home.settings_path.write_text("{not json")
    with pytest.raises(HomeError, match="settings.json is not valid JSON .* line 1, column 2.*delete it"):
        home.settings()
    home.settings_path.write_text('{"memory_sources": 5}')
    with pytest.raises(HomeError, match="does not hold ltm settings"):
        home.settings()
