"""`HybridLTM.add`: store one memory online, searchable and linked at once, durable, without
touching the graph build.

Under the home's `memories` lock, in this order:
1. finish or undo an add a kill interrupted (`ltm.memory.journal`);
2. embed the content with the model of the vector table (else the home's embedder);
3. the journal; from here on, on a second thread, the vector row, carrying the node id (appended
   for a new id; visible to search at once);
4. meanwhile, link it against the lake's code (`graph_links` and the automatic rules; the code
   index stays warm in the process), judge it against its nearest stored memories, and make one
   lake commit of the `memories` partition: its embedding, its links and last the Memory row (the
   source of truth, which every later build copies). A new id appends a small part file per
   table; an id stored before merges the partition, as an import does.
The journal settles either store's half by the lake alone (`recover`), so the order of the two
writes does not matter; once both are done the journal is removed.
Then, outside the lock, a fold of the many small files adds leave is queued if one is due
(`ltm.memory.compaction`: it runs on a worker thread after the add has returned).
The graph is not written: readers overlay the lake's memories their build lacks
(`ltm.graph.overlay`), and the next build holds them. A linking failure never fails the add: it
is logged and returned in `link_errors`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, wait
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ltm import ids
from ltm.embed.base import Embedder
from ltm.embed.cache import plan_requests
from ltm.embed.registry import embedder_for_home, embedder_for_model
from ltm.errors import DimensionMismatchError
from ltm.graph.current import current_build
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory import compaction
from ltm.memory.evolution import EVOLUTION_TABLES, Evolution, evolve_added
from ltm.memory.neighbours import IN_PROCESS_MAX
from ltm.memory.journal import begin, end, recover
from ltm.memory.linking import RELS, link_memories, memory_frame
from ltm.memory import expiry, provenance
from ltm.memory.records import (
    MEMORY_PARTITION,
    MemoryInputError,
    MemoryType,
    memory_row,
    with_scope,
)
from ltm.memory.store import code_index, merge_table
from ltm.part_files import PartFiles
from ltm.redact import redact_row
from ltm.schema import lake_schema
from ltm.stages.embeddings import embeddings_table
from ltm.vectors import VectorStore, entry_rows

log = logging.getLogger(__name__)
SOURCE = "online"


def online_embedder(home: Home, store: VectorStore) -> Embedder:
    """The embedder of the vector table's model, else the one the home's settings name (as the pipeline's)."""
    meta = store.model()
    if meta:
        return embedder_for_model(meta["model"], meta["dim"])
    return embedder_for_home(home)


def _embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """One vector per text, in the provider's batches (and token budget)."""
    sent, batches = plan_requests(embedder, texts)
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for batch in batches:
        got = np.asarray(embedder.embed([sent[i] for i in batch]), dtype=np.float32)
        if got.shape != (len(batch), embedder.dim):
            raise DimensionMismatchError(
                f"{embedder.model_id} returned vectors of shape {got.shape} for {len(batch)} texts, the vector "
                f"table holds dimension {embedder.dim}: use the model the table was built with, or switch the "
                "home with `ltm reembed`"
            )
        out[batch] = got
    return out


def _links(lake: Lake, rows: list[dict[str, Any]]) -> tuple[pl.DataFrame, dict[str, list[str]]]:
    """The memories' links against the lake's code, and errors by memory id; never raises."""
    try:
        result = link_memories(memory_frame(rows), code_index(lake))
        errors: dict[str, list[str]] = {}
        for mem_id, reason in result.failures:
            errors.setdefault(mem_id, []).append(reason)
        return result.links, errors
    except Exception as e:  # a linking failure never fails the memories' storage
        log.warning("linking memories %s failed: %s", ", ".join(r["id"] for r in rows[:3]), e)
        return pl.DataFrame(), {r["id"]: [f"linking failed: {e}"] for r in rows}


def _link_rows(links: pl.DataFrame, now: datetime) -> dict[str, pl.DataFrame]:
    """The lake rows of the links, by rel table."""
    if not links.height:
        return {}
    rows = links.select(
        "rel", "src", "dst", pl.lit("Memory").alias("src_label"), "dst_label", "repo", "relevance_score",
        "context", pl.lit(now, dtype=pl.Datetime("us", "UTC")).alias("linked_at"),
    )
    return {rel: part.drop("rel") for (rel,), part in rows.partition_by("rel", as_dict=True).items()}


def _evolution(lake: Lake, store: VectorStore, rows: list[dict[str, Any]], vectors: np.ndarray,
               links: pl.DataFrame, stored: int) -> dict[str, pl.DataFrame]:
    """SIMILAR_TO / SUPERSEDES / TRANSITIONED_TO of the new memories against their nearest stored
    ones (`ltm.memory.evolution`), by table; never raises (the next batch recomputes them)."""
    try:
        # a small partition is searched in this process: the LanceDB table is not even opened
        table = store.table() if stored > IN_PROCESS_MAX and store.exists() else None
        ev: Evolution = evolve_added(lake, table, rows, vectors, links, stored)
        return {t: df for t, df in ev.tables().items() if df.height}
    except Exception as e:  # the memory is stored all the same; the next ingest judges it
        log.warning("judging memories %s against their neighbours failed: %s", ", ".join(r["id"] for r in rows[:3]), e)
        return {}


def _commit(lake: Lake, rows: list[dict[str, Any]], emb: pa.Table, links: dict[str, pl.DataFrame], append: bool) -> None:
    """One commit of the memories partition, the Memory table last (the lake's commit point)."""
    memories = pa.Table.from_pylist(rows, schema=lake_schema("Memory"))
    with lake.write(MEMORY_PARTITION) as w:
        if append:  # new ids: a small part file per table, the rows already there untouched
            # Redacted before embedding (the rows) or free of user text (ids, hashes, vectors).
            w.append("embeddings", emb, redacted=True)
            for rel, new in links.items():
                w.append(rel, new.to_arrow(), redacted=True)
            derived = provenance.derives_from_rows(rows)
            if derived.num_rows:
                w.append(provenance.REL, derived, redacted=True)
            w.append("Memory", memories, redacted=True)
            return
        # An id stored before: the partition is merged (the lake's rows were redacted when first
        # written, the new ones above, so nothing is scanned again).
        mem_ids = [r["id"] for r in rows]
        for table in EVOLUTION_TABLES:  # a rewritten memory is judged anew
            if table in links:
                old = pl.from_arrow(lake.read(table, MEMORY_PARTITION)).filter(~pl.col("src").is_in(mem_ids))
                w.write(table, pl.concat([old, links[table].cast(old.schema)], how="vertical").to_arrow().cast(lake_schema(table)),
                        redacted=True)
        w.write("embeddings", merge_table(lake, "embeddings", emb, ["vector_id"]), redacted=True)
        for rel in RELS.values():
            old = pl.from_arrow(lake.read(rel, MEMORY_PARTITION)).filter(~pl.col("src").is_in(mem_ids))
            if rel in links:
                old = pl.concat([old, links[rel].cast(old.schema)], how="vertical")
            w.write(rel, old.to_arrow().cast(lake_schema(rel)), redacted=True)
        merged = merge_table(lake, "Memory", memories, ["id"])
        w.write(provenance.REL, provenance.partition_rows(merged), redacted=True)
        w.write("Memory", merged, redacted=True)


def add_memory(home: Home, content: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store one memory (see the module doc); returns its `vector_id` and `graph_entity_id`."""
    return add_memories(home, [(content, metadata)])[0]


def add_memories(home: Home, entries: Iterable[tuple[str, dict[str, Any] | None]], namespace: str | None = None,
                 agent_id: str | None = None) -> list[dict[str, Any]]:
    """Store several memories as one add: one embedding pass, one write per lake table, one vector
    upsert (a batch of a handful costs about one add).

    `entries` are (content, metadata) pairs; returns one result per entry, in order (`linked`: the
    code entities it was linked to, {relation, target}; `in_graph`:
    graph readers see it at once, through the overlay on the current build; False before any build,
    the first build then holds it). A bad entry
    refuses the whole batch, naming it, before anything is written. Two entries with one `id`: the
    later wins, as in an import. An entry without its own `namespace` / `agent_id` metadata gets
    these (else `shared`); working and sensory ones their default expiry (`ltm.memory.expiry`).
    """
    now = datetime.now(timezone.utc)
    ttls = expiry.ttl_hours(home.settings().other)
    rows: list[dict[str, Any]] = []
    entries = list(entries)
    for i, entry in enumerate(entries):
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise MemoryInputError(_which(i, len(entries), f"an entry is a (content, metadata) pair, got {entry!r:.80}"))
        content, metadata = entry
        if metadata is not None and not isinstance(metadata, dict):
            raise MemoryInputError(_which(i, len(entries), f"metadata must be an object, got {type(metadata).__name__}"))
        md = dict(metadata or {})
        mem_id = str(md.pop("id", None) or uuid.uuid4().hex)
        md.setdefault("created_at", now.isoformat())
        try:
            row = with_scope(memory_row(SOURCE, mem_id, content, metadata=md, default_type=MemoryType.EPISODIC),
                             namespace, agent_id)
            rows.append(expiry.with_expiry(row, ttls, now))
        except MemoryInputError as e:
            raise MemoryInputError(_which(i, len(entries), str(e))) from e
    if not rows:
        return []
    lake, store = home.open_lake(), _vector_store(home)
    if lake.redact:  # before the content is embedded or written anywhere
        rows = [redact_row(r) for r in rows]
    unique = list({r["id"]: r for r in rows}.values())  # the later entry of one id wins
    embedder = online_embedder(home, store)
    with home.lock("memories", timeout=600):
        recover(home, lake, store)
        vectors = _embed(embedder, [r["text"] for r in unique])
        stored = _stored_ids(lake)
        # New ids append; an id stored before is merged. Many small parts are folded after the add.
        new_ids = not (stored & {r["id"] for r in unique})
        emb = embeddings_table([r["vector_id"] for r in unique], [ids.text_hash(r["text"]) for r in unique],
                               embedder.model_id, embedder.dim, vectors.astype(np.float32).reshape(-1))
        begin(home, unique)
        # The vector row needs only the memory and its vector: it is written while the links are found
        appending = _VECTOR_WRITER.submit(_write_vectors, home, store, unique, emb, new_ids)
        try:
            links, errors = _links(lake, unique)
            evolution = _evolution(lake, store, unique, vectors, links, len(stored))
            _commit(lake, unique, emb, {**_link_rows(links, now), **evolution}, new_ids)
        except BaseException:
            wait([appending])  # the journal stays: the next add's `recover` removes the vector row
            raise
        appending.result()
        end(home)
    compaction.schedule(home, lake, store)  # folding many small files, if due, runs after we return
    linked: dict[str, list[dict[str, str]]] = {}
    for src, rel, dst in (links.select("src", "rel", "dst").sort("rel", "dst").iter_rows() if links.height else ()):
        linked.setdefault(src, []).append({"relation": rel, "target": dst})
    built = current_build(home.graph) is not None
    sup = evolution.get("SUPERSEDES", pl.DataFrame(schema={"src": pl.String, "dst": pl.String}))
    return [
        {"vector_id": r["vector_id"], "graph_entity_id": r["id"], "links": len(linked.get(r["id"], [])),
         "linked": linked.get(r["id"], []), "link_errors": errors.get(r["id"], []), "in_graph": built,
         "supersedes": sup.filter(pl.col("src") == r["id"])["dst"].sort().to_list()}
        for r in rows
    ]


_VECTOR_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ltm-online-vectors")


def _write_vectors(home: Home, store: VectorStore, rows: list[dict[str, Any]], emb: pa.Table, new_ids: bool) -> None:
    """The memories' vector rows: appended for new ids, merged for ids stored before."""
    new_rows = entry_rows("Memory", pa.Table.from_pylist(rows, schema=lake_schema("Memory")), emb)
    with compaction.vectors_lock(home) if new_ids else home.lock("vectors", timeout=600):
        store.upsert_rows(new_rows, new=new_ids)  # a merge on a large table costs ~0.5 s


_STORES: dict[Path, VectorStore] = {}
_IDS: dict[str, PartFiles[frozenset[str]]] = {}  # lake root -> its Memory part files' ids


def _vector_store(home: Home) -> VectorStore:
    """One VectorStore (one LanceDB connection) per home in the process."""
    root = home.vectors.resolve()
    if root not in _STORES:
        _STORES[root] = VectorStore(home.vectors)
    return _STORES[root]


def _stored_ids(lake: Lake) -> set[str]:
    """Ids in the lake's `memories` partition; each part file is read once (by name, size and mtime)."""
    files = _IDS.setdefault(str(lake.root), PartFiles(
        lake.root / "Memory" / f"repo={MEMORY_PARTITION}",
        lambda f: frozenset(pq.read_table(f, columns=["id"]).column("id").to_pylist())))
    files.refresh()
    return set().union(*files.values())


def _which(i: int, n: int, message: str) -> str:
    return message if n == 1 else f"memory {i + 1} of {n}: {message}"
