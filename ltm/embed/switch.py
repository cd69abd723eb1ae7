"""Changing a home's embedding model: re-embed into a new table, prove it, then switch readers.

Readers keep querying the current table (named by `vectors/model.json`) the whole time. The new
model's vectors go into a table of their own; when every registered repository is in it and
every graph node with a `vector_id` has its row there (and every row its node), the pointer is
replaced atomically. A failure at any point leaves the current table and pointer as they were;
the embedding cache keeps what was already paid for, so a second attempt sends only the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ltm.embed.base import Embedder
from ltm.errors import ModelSwitchError
from ltm.graph.read import open_current, vector_links
from ltm.home import Home
from ltm.lake import Lake
from ltm.stages.embeddings import EmbedStats, embed_repo
from ltm.vectors import VectorStore, vector_rows


@dataclass(frozen=True)
class SwitchStats:
    previous: dict | None
    model: str
    dim: int
    table: str
    rows: int
    embedded_now: int
    switched: bool


def reembed_home(home: Home, embedder: Embedder, on_repo: Callable[[str, EmbedStats], None] | None = None) -> SwitchStats:
    """Embed every lake partition with `embedder` into a new table, check it, switch.

    The caller holds the home's ingest lock, so no ingest writes the lake meanwhile.
    """
    store = VectorStore(home.vectors)
    lake = Lake(home.lake)
    previous = store.model()
    if previous and previous["model"] == embedder.model_id and previous["dim"] == embedder.dim:
        return SwitchStats(previous, embedder.model_id, embedder.dim, previous["table"], store.count(), 0, False)
    table = store.staging_table(embedder.model_id, embedder.dim)
    embedded_now = 0
    for key in lake.repos():  # every partition, the memories one included
        stats = embed_repo(lake, key, embedder, home.cache / "embeddings")
        embedded_now += stats.embedded_now
        store.upsert_repo(key, vector_rows(lake, key), table=table)
        if on_repo:
            on_repo(key, stats)
    _prove(home.graph, store, table)
    store.switch(table, embedder.model_id, embedder.dim)
    return SwitchStats(previous, embedder.model_id, embedder.dim, table, store.count(), embedded_now, True)


def _prove(graph_root: Path, store: VectorStore, table: str) -> None:
    """Both directions of the node <-> row link over the new table, before anyone reads it."""
    with open_current(graph_root) as conn:
        nodes = vector_links(conn)
    rows = store.links(table=table)
    missing = sorted(eid for eid, (_, vid) in nodes.items() if rows.get(vid) != eid)
    extra = sorted(vid for vid, eid in rows.items() if eid is not None and nodes.get(eid, ("", None))[1] != vid)
    if missing or extra:
        raise ModelSwitchError(
            f"the new vector table {table} does not match the graph ({len(missing)} nodes without their row, "
            f"e.g. {missing[:3]}; {len(extra)} rows without their node, e.g. {extra[:3]}): readers stay on the "
            "current table; run `ltm ingest` for every repository, then `ltm reembed` again"
        )
