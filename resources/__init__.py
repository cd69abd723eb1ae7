"""Outside systems as Dagster resources: the home (lake, git), the embedder, Kuzu, LanceDB.

Each resource is a small typed configuration over an adapter in `ltm/`; tests use the real ones.
"""

from __future__ import annotations

from typing import Optional

from dagster import ConfigurableResource
from pydantic import Field

from ltm.embed.base import Embedder
from ltm.embed.registry import EmbedderOptions, embedder_for_home
from ltm.graph.build import BuildStats, build_graph
from ltm.home import Home
from ltm.lake import Lake
from ltm.vectors import VectorStore


class HomeResource(ConfigurableResource):
    """The ltm home: lake, caches, repository registry."""

    path: str = Field(default="", description="Home directory; empty means $LTM_HOME, else ./.ltm")

    def home(self) -> Home:
        return Home.resolve(self.path or None).create()

    def lake(self) -> Lake:
        return self.home().open_lake()


class EmbedderResource(ConfigurableResource):
    """The embedding provider. Secrets come from the environment (e.g. EnvVar('OPENAI_API_KEY'))."""

    home: HomeResource
    provider: str = Field(default="", description="local, openai, static or hash; empty means the home's setting, else local")
    model: Optional[str] = Field(default=None, description="Model name for the openai provider")
    base_url: Optional[str] = Field(default=None, description="OpenAI-compatible endpoint; else $OPENAI_BASE_URL")
    api_key: Optional[str] = Field(default=None, description="API key; set it with EnvVar, never inline")
    dimensions: Optional[int] = Field(default=None, description="Requested output dimension (openai)")
    batch_size: Optional[int] = Field(default=None, description="Texts per request (openai, at most 2048) / per encode call")
    threads: Optional[int] = Field(default=None, description="torch threads for the local model (default: all cores)")
    device: Optional[str] = Field(default=None, description="torch device for the local model (cpu, cuda, mps)")
    max_seq_length: Optional[int] = Field(default=None, description="Tokens read per text by the local model (default 256)")
    concurrency: Optional[int] = Field(default=None, description="Requests in flight at once (openai, default 4)")
    timeout_s: Optional[float] = Field(default=None, description="Seconds before a request is retried (openai, default 60)")
    max_retries: Optional[int] = Field(default=None, description="Retries of a 429/5xx/timeout per batch (openai, default 6)")

    def embedder(self) -> Embedder:
        """The provider configured here, else the one the home recorded (with its model and dimension)."""
        return embedder_for_home(self.home.home(), EmbedderOptions(
            provider=self.provider or None, model=self.model, dimensions=self.dimensions, api_key=self.api_key,
            base_url=self.base_url, batch_size=self.batch_size, concurrency=self.concurrency, timeout=self.timeout_s,
            max_retries=self.max_retries, threads=self.threads, device=self.device, max_seq_length=self.max_seq_length,
        ))


class KuzuGraphResource(ConfigurableResource):
    """The graph (Kuzu or LadybugDB, as the home's settings say): blue/green builds under <home>/graph."""

    home: HomeResource
    retention: int = Field(default=3, description="Complete builds kept on disk (the current one always)")
    lock_timeout_s: float = Field(default=3600, description="How long a build waits for another build")

    def build(self) -> BuildStats:
        home = self.home.home()
        with home.lock("graph", timeout=self.lock_timeout_s):
            return build_graph(home.graph, Lake(home.lake), self.retention, engine_name=home.graph_engine())


class LanceVectorsResource(ConfigurableResource):
    """The LanceDB vector store under <home>/vectors (one writer at a time)."""

    home: HomeResource
    lock_timeout_s: float = Field(default=3600, description="How long a writer waits for another writer")

    def store(self) -> VectorStore:
        return VectorStore(self.home.home().vectors)


class MemorySourcesResource(ConfigurableResource):
    """Memory sources re-read on every run, besides those `ltm memory import` registered in the home."""

    sources: list[str] = Field(
        default=[], description="'format:path' entries; format one of jsonl, tracemem, amplihack, docs"
    )
