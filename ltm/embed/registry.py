"""Which embedder: the one place that names the providers and picks one for a home or a table.

- `make_embedder(name, **options)`: a provider by name (`local`, `openai`, `static`, `hash`);
- `provider_for_run(home, requested)`: what an ingest or backfill uses, refusing a provider other
  than the one the home recorded (its vectors would not be comparable);
- `check_credentials(name)`: the API-key check, before anything is written;
- `embedder_for_home(home, options)`: the home's recorded provider, model and dimension, with the
  caller's options on top (the Dagster resource and the online add both use it);
- `embedder_for_model(model, dim)`: the provider that made a vector table's `model`, to embed
  queries and online memories the same way (for the bundled local model, its numpy forward pass:
  the same vectors without importing torch, `minilm.py`).

The providers that pull in a heavy library (sentence-transformers, openai, tokenizers) import it
only when one is made.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from ltm.embed.base import Embedder
from ltm.embed.hashing import HashEmbedder
from ltm.embed.local import LOCAL_MODEL, LocalEmbedder, local_model_path
from ltm.embed.openai_api import OpenAIEmbedder, resolve_api_key
from ltm.embed.static import RETIRED_MODELS, STATIC_MODEL, StaticEmbedder
from ltm.errors import EmbeddingError
from ltm.home import Home

ProviderName = Literal["local", "openai", "static", "hash"]
PROVIDERS: tuple[str, ...] = ("local", "openai", "static", "hash")
DEFAULT_PROVIDER = "local"

# The constructor options each provider takes from `EmbedderOptions` (others are ignored for it).
_OPTIONS: dict[str, tuple[str, ...]] = {
    "local": ("batch_size", "threads", "device", "max_seq_length"),
    "openai": ("model", "api_key", "base_url", "dimensions", "batch_size", "concurrency", "timeout", "max_retries"),
    "static": ("batch_size",),
    "hash": (),
}


@dataclass(frozen=True)
class EmbedderOptions:
    """A caller's choices on top of the home's settings; None means the home's, else the default."""

    provider: str | None = None
    model: str | None = None
    dimensions: int | None = None
    api_key: str | None = None
    base_url: str | None = None
    batch_size: int | None = None
    concurrency: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    threads: int | None = None
    device: str | None = None
    max_seq_length: int | None = None


def make_embedder(provider: str, **options: object) -> Embedder:
    """The provider by name; options are passed to its constructor (None values dropped)."""
    opts = {k: v for k, v in options.items() if v is not None}
    if provider == "local":
        return LocalEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "openai":
        return OpenAIEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "static":
        return StaticEmbedder(**opts)  # type: ignore[arg-type]
    if provider == "hash":
        return HashEmbedder(**opts)  # type: ignore[arg-type]
    raise EmbeddingError(f"unknown embedder {provider!r}: choose one of {', '.join(PROVIDERS)}")


def check_credentials(provider: str) -> None:
    """EmbeddingError naming the fix when `provider` needs a secret the environment lacks."""
    if provider == "openai":
        resolve_api_key()


def provider_for_run(home: Home, requested: str | None, command: str) -> str:
    """The provider an ingest or backfill (`command`) uses: the requested one, else the home's, else local.

    A home keeps one provider: asking for another is an EmbeddingError (`ltm reembed` switches).
    """
    recorded = home.settings().embedder if home.exists() else None
    provider = requested or recorded or DEFAULT_PROVIDER
    if recorded and recorded != provider:
        raise EmbeddingError(
            f"{home.root} was built with --embedder {recorded}; {command} with the same embedder or into a new --home"
        )
    check_credentials(provider)
    return provider


def embedder_for_home(home: Home, options: EmbedderOptions | None = None) -> Embedder:
    """The embedder the home's settings name (provider, model, dimension), `options` taking precedence."""
    opts = options or EmbedderOptions()
    settings = home.settings()
    provider = opts.provider or settings.embedder or DEFAULT_PROVIDER
    chosen = asdict(opts)
    if provider == "openai":  # what `ltm reembed` switched the home to
        chosen["model"] = opts.model or settings.embedder_model
        chosen["dimensions"] = opts.dimensions or settings.embedder_dimensions
    return make_embedder(provider, **{k: chosen[k] for k in _OPTIONS.get(provider, ())})


def embedder_for_model(model: str, dim: int) -> Embedder:
    """The provider that produced vectors of `model`, to embed queries the same way."""
    if model.startswith("hash-"):
        return HashEmbedder(dim)
    if model == LOCAL_MODEL:
        path = local_model_path()
        if path != LOCAL_MODEL:  # the bundled files: numpy, no torch (`minilm.py`)
            from ltm.embed.minilm import MiniLMQueryEmbedder

            return MiniLMQueryEmbedder(path)
        return make_embedder("local")
    if model == STATIC_MODEL:
        return make_embedder("static")
    if model.startswith(RETIRED_MODELS):
        raise EmbeddingError(f"this home's vectors were made by {model}, which is no longer shipped: "
                             "run `ltm reembed --embedder static` (or another provider) to embed them again")
    name, _, dims = model.partition("@")
    emb = make_embedder("openai", model=name, dimensions=int(dims) if dims else None)
    if dims == "" and emb.dim != dim:
        raise EmbeddingError(f"{model} now returns dimension {emb.dim}, the table holds {dim}")
    return emb
