"""A stage's plain metadata as Dagster metadata values."""

from collections.abc import Collection
from typing import Any

from dagster import MaterializeResult, MetadataValue


def metadata_values(meta: dict[str, Any], markdown: Collection[str] = ()) -> dict[str, Any]:
    """Dicts and lists as JSON, floats as floats, the keys in `markdown` as Markdown; the rest as they are."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if key in markdown:
            out[key] = MetadataValue.md(value)
        elif isinstance(value, (dict, list)):
            out[key] = MetadataValue.json(value)
        elif isinstance(value, float):
            out[key] = MetadataValue.float(value)
        else:
            out[key] = value
    return out


def materialized(result: Any, markdown: dict[str, str] | None = None) -> MaterializeResult:
    """A stage result's `metadata()` and its `summary()` line (key `summary`), plus Markdown pages by key."""
    meta = {**result.metadata(), **(markdown or {}), "summary": result.summary()}
    return MaterializeResult(metadata=metadata_values(meta, markdown or {}))
