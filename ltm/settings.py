"""`HomeSettings`: what a home records in `settings.json` so every later run uses the same choices.

The first ingest records the embedder and the graph engine; `ltm reembed` the model and dimension it switched to;
`ltm memory import` the memory sources every ingest re-reads; a user may add a `ranking` section
of weights (`ltm.retrieval.ranking`). Keys this class does not know are kept as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class MemorySource:
    """A memory source registered by `ltm memory import`: its format and absolute path."""

    format: str
    path: str
    namespace: str | None = None  # given to its entries that name none (ltm/visibility.py)
    agent_id: str | None = None


@dataclass(frozen=True)
class HomeSettings:
    """The home's recorded choices; every field is optional (an empty home records nothing)."""

    embedder: str | None = None
    embedder_model: str | None = None
    embedder_dimensions: int | None = None
    ranking: dict[str, Any] = field(default_factory=dict)
    memory_sources: tuple[MemorySource, ...] = ()
    graph_engine: str | None = None
    """The graph engine of the home's builds (`ltm.graph.engine.ENGINES`); None: `LTM_GRAPH_ENGINE`, else kuzu."""
    redact_secrets: bool = True
    """Replace well-known secret formats before anything is stored or embedded (`ltm.redact`)."""
    other: dict[str, Any] = field(default_factory=dict)  # keys written by hand or by a later version

    @classmethod
    def from_json(cls, text: str) -> "HomeSettings":
        """Parse `settings.json`; json.JSONDecodeError when the file is not JSON."""
        data = json.loads(text)
        known = {f.name for f in fields(cls)} - {"other"}
        return cls(
            embedder=data.get("embedder"),
            embedder_model=data.get("embedder_model"),
            embedder_dimensions=data.get("embedder_dimensions"),
            graph_engine=data.get("graph_engine"),
            ranking=dict(data.get("ranking") or {}),
            memory_sources=tuple(MemorySource(s["format"], s["path"], s.get("namespace"), s.get("agent_id")) for s in data.get("memory_sources", [])),
            redact_secrets=bool(data.get("redact_secrets", True)),
            other={k: v for k, v in data.items() if k not in known},
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON object written to `settings.json` (unset fields left out)."""
        out: dict[str, Any] = dict(self.other)
        for name in ("embedder", "embedder_model", "embedder_dimensions", "graph_engine"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.ranking:
            out["ranking"] = dict(self.ranking)
        if not self.redact_secrets:
            out["redact_secrets"] = False
        if self.memory_sources:
            out["memory_sources"] = [
                {"path": s.path, "format": s.format,
                 **{k: v for k, v in (("namespace", s.namespace), ("agent_id", s.agent_id)) if v is not None}}
                for s in self.memory_sources]
        return out

    def updated(self, **values: Any) -> "HomeSettings":
        """A copy with the given fields set; None values leave a field as it is."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})
