"""Expiry of short-lived memories: working and sensory memories carry `expires_at`.

An entry's own `expires_at` (metadata) wins; otherwise working and sensory memories get a default
time to live from their `created_at` (else the moment they are stored): `DEFAULT_TTL_HOURS`,
overridden per type by `memory_ttl_hours` in the home's `settings.json`
(e.g. `{"memory_ttl_hours": {"working": 72, "sensory": 0.5}}`; null or 0 for a type: no default).
Queries never answer an expired memory (`ltm.visibility`); the `maintenance` asset removes expired
memories from the lake's `memories` partition (their embeddings, links and provenance too) and
their vector rows (`remove_expired`), so the next graph build no longer holds them. An import
skips an entry that has already expired (counted in its report), so a re-read source never brings
one back.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

import polars as pl

from ltm.errors import LtmError
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.schema import REL_TABLES, lake_schema

DEFAULT_TTL_HOURS: dict[str, float] = {"working": 24.0, "sensory": 1.0}
MEMORY_RELS = tuple(name for name, r in REL_TABLES.items() if any(a == "Memory" for a, _ in r.pairs))


def ttl_hours(settings_other: Mapping[str, Any] | None) -> dict[str, float]:
    """The default time to live per memory type: the defaults, overridden by `memory_ttl_hours`."""
    out = dict(DEFAULT_TTL_HOURS)
    given = (settings_other or {}).get("memory_ttl_hours")
    if given is None:
        return out
    if not isinstance(given, dict):
        raise LtmError(f"memory_ttl_hours in settings.json must be an object such as {{\"working\": 24}}, got {given!r}")
    for kind, hours in given.items():
        if hours is not None and (isinstance(hours, bool) or not isinstance(hours, (int, float)) or hours < 0):
            raise LtmError(f"memory_ttl_hours[{kind!r}] {hours!r} is not a number of hours (0 or more, or null)")
        out[str(kind)] = float(hours or 0)
    return {k: v for k, v in out.items() if v}


def with_expiry(row: dict[str, Any], ttls: Mapping[str, float], now: datetime) -> dict[str, Any]:
    """The row with `expires_at` set from its type's default TTL when it has none."""
    hours = ttls.get(row.get("memory_type") or "")
    if row.get("expires_at") is None and hours:
        row["expires_at"] = (row.get("created_at") or now) + timedelta(hours=hours)
    return row


def is_expired(row: Mapping[str, Any], now: datetime) -> bool:
    """Whether the row's `expires_at` is at or before `now`."""
    at = row.get("expires_at")
    return at is not None and (at if at.tzinfo else at.replace(tzinfo=timezone.utc)) <= now


def remove_expired(lake: Lake, now: datetime) -> list[tuple[str, str]]:
    """Drop the expired memories of the `memories` partition with their embeddings, links and
    provenance, in one lake commit; returns their (graph id, vector id). Call under the
    home's `memories` lock."""
    mem = pl.from_arrow(lake.read("Memory", MEMORY_PARTITION))
    if mem.height == 0:
        return []
    gone = mem.filter(pl.col("expires_at").is_not_null() & (pl.col("expires_at") <= now))
    if gone.height == 0:
        return []
    ids, vids = gone["id"].to_list(), gone["vector_id"].to_list()
    with lake.write(MEMORY_PARTITION) as w:
        emb = pl.from_arrow(lake.read("embeddings", MEMORY_PARTITION))
        w.write("embeddings", emb.filter(~pl.col("vector_id").is_in(vids)).to_arrow().cast(lake_schema("embeddings")))
        for rel in MEMORY_RELS:
            old = pl.from_arrow(lake.read(rel, MEMORY_PARTITION))
            if old.height:
                kept = old.filter(~pl.col("src").is_in(ids) & ~pl.col("dst").is_in(ids))
                w.write(rel, kept.to_arrow().cast(lake_schema(rel)))
        w.write("Memory", mem.filter(~pl.col("id").is_in(ids)).to_arrow().cast(lake_schema("Memory")))
    return list(zip(ids, vids))
