"""DERIVES_FROM: a memory -> the memories (episodes) it was extracted from, with `method` and
`confidence`, wherever a source carries provenance.

Sources write it into a memory's lake-only `derives_from` column (JSON `[{id, method, confidence}]`):
JSON Lines as metadata `derives_from: ["episode-id", {"id": ..., "method": ..., "confidence": ...}]`
(ids of the same source, or full `mem:` ids), amplihack from its `DERIVES_FROM` and
`PROCEDURE_DERIVES_FROM` edges (`ltm.memory.sources.read_amplihack`). The `DERIVES_FROM` lake table
of the `memories` partition is a pure function of those columns (`derives_from_rows`), rewritten
whenever the partition's memories are (an import, an online add, the removal of expired memories),
and the graph build COPYs it; an edge to a memory the home does not hold is left out by the build
(counted in its `dangling_edges`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from ltm.memory.records import MEMORY_PARTITION
from ltm.schema import lake_schema

REL = "DERIVES_FROM"


def derives_from_rows(memories: Iterable[dict[str, Any]]) -> pa.Table:
    """The DERIVES_FROM lake rows of these Memory rows (one per (memory, source memory), first wins)."""
    rows, seen = [], set()
    for m in memories:
        for item in json.loads(m.get("derives_from") or "[]"):
            key = (m["id"], item["id"])
            if key in seen or item["id"] == m["id"]:
                continue
            seen.add(key)
            rows.append({"src": m["id"], "dst": item["id"], "src_label": "Memory", "dst_label": "Memory",
                         "repo": MEMORY_PARTITION, "method": item.get("method"), "confidence": item.get("confidence")})
    return pa.Table.from_pylist(rows, schema=lake_schema(REL))


def partition_rows(memories: pa.Table) -> pa.Table:
    """DERIVES_FROM of a whole `memories` partition (its Memory table)."""
    cols = [c for c in ("id", "derives_from") if c in memories.column_names]
    return derives_from_rows(memories.select(cols).to_pylist() if len(cols) == 2 else [])
