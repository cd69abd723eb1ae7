"""The LanceDB side: one `entries` table of vector rows, written from the lake.

Rows are upserted by `vector_id` (merge_insert), rows of the repository whose entity left the lake
are deleted, then the keys get BTree indexes, `content` a native full-text index, the vectors an
IVF-PQ index once the table is large enough, and `optimize()` folds new rows into the indexes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

os.environ.setdefault("LANCEDB_LOG", "error")  # lance warns of empty index partitions on every optimize
import numpy as np
import pyarrow as pa

from ltm import progress
from ltm.atomic import replace_text
from ltm.errors import DimensionMismatchError, LtmError, NotIngestedError, VectorStoreError
from ltm.ids import is_valid_repo_key
from ltm.light_imports import import_lancedb
from ltm.lake import Lake
from ltm.schema import NODE_TABLES, TS

if TYPE_CHECKING:
    import polars as pl  # imported where rows are built: a reader (a cold `ltm query`) never needs it

lancedb = import_lancedb()
from lancedb.index import FTS, BTree, IvfPq  # noqa: E402  (after the lighter import above)

TABLE = "entries"
log = logging.getLogger(__name__)
VECTOR_INDEX_MIN_ROWS = 10_000
# How a search reads the IVF-PQ index: partitions probed, and candidates re-ranked by their full
# vectors per hit wanted. At 32 / 4 the 30 nearest of 21,719 real rows were 93% those of an exact
# search, and which 7% were missed changed with each index build (its partitions are trained
# anew), so two ingests of the same lake answered differently; at 64 / 20 they are 99.5-99.9% the
# exact ones for about 2 ms more (bench/vector_index.py). Without an index LanceDB scans exactly.
INDEX_NPROBES = 64
INDEX_REFINE = 20
_META_COLUMNS = [
    ("file_path", pa.string()), ("function_name", pa.string()), ("module", pa.string()),
    ("line_start", pa.int32()), ("line_end", pa.int32()), ("tags", pa.list_(pa.string())),
    ("importance", pa.float64()), ("created_at", TS), ("last_accessed", TS),
    # memories' isolation and expiry (ltm/visibility.py), null on every other row
    ("agent_id", pa.string()), ("namespace", pa.string()), ("private", pa.bool_()), ("expires_at", TS),
]


def nearest(table, vector: np.ndarray, limit: int, where: str | None = None, columns: list[str] | None = None):
    """A LanceDB query for the `limit` rows nearest `vector` by cosine distance, among those `where`
    admits (a prefilter, so the filter never starves the top `limit`); through the vector index,
    where the table has one, at `INDEX_NPROBES` / `INDEX_REFINE`. Rows carry `_distance`."""
    q = (table.search(np.asarray(vector, dtype=np.float32)).distance_type("cosine")
         .nprobes(INDEX_NPROBES).refine_factor(INDEX_REFINE).limit(limit))
    if columns is not None:
        q = q.select([*columns, "_distance"])
    if where:
        q = q.where(where, prefilter=True)
    return q


def vector_schema(dim: int) -> pa.Schema:
    """The `entries` table schema for a model dimension."""
    return pa.schema(
        [
            ("vector_id", pa.string()), ("graph_entity_id", pa.string()), ("repo", pa.string()),
            ("label", pa.string()), ("category", pa.string()), ("content", pa.string()),
            *_META_COLUMNS,
            ("text_hash", pa.string()), ("model", pa.string()), ("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def _node_rows(lake: Lake, repo: str, label: str) -> pl.DataFrame:
    """One label's embedded nodes with the vector metadata the seed schema names."""
    import polars as pl

    return _node_frame(pl.from_arrow(lake.read(label, repo)), label)


# A metadata column read from another lake column of the label (by `_node_frame` and `entry_rows`).
_META_SOURCES = {"Function": {"function_name": "qualified_name"}, "Module": {"file_path": "path", "module": "name"},
                 "Commit": {"created_at": "committed_at"}}


def _node_frame(df: pl.DataFrame, label: str) -> pl.DataFrame:
    import polars as pl

    category = NODE_TABLES[label].category.value  # type: ignore[union-attr]
    sources = _META_SOURCES.get(label, {})
    cols = {c: df[sources.get(c, c)] if sources.get(c, c) in df.columns else None for c, _ in _META_COLUMNS}
    out = pl.DataFrame(
        {
            "vector_id": df["vector_id"], "graph_entity_id": df["id"], "repo": df["repo"],
            "label": [label] * df.height,
            "category": df["category"] if label == "Memory" else [category] * df.height,
            "content": df["text"].fill_null(df["id"]),
        }
    )
    dtypes = _meta_dtypes()
    return out.with_columns(
        [
            (pl.Series(c, cols[c]) if cols[c] is not None else pl.lit(None)).cast(dtypes[c]).alias(c)
            for c, _ in _META_COLUMNS
        ]
    ).filter(pl.col("vector_id").is_not_null())


@functools.cache
def _meta_dtypes() -> dict[str, Any]:
    """The polars dtype of each metadata column (converted once: an online add builds one row)."""
    import polars as pl

    return {c: pl.from_arrow(pa.array([], t)).dtype for c, t in _META_COLUMNS}


def vector_rows(lake: Lake, repo: str) -> pa.Table:
    """The repository's vector rows: embedded nodes joined with their lake embeddings."""
    import polars as pl

    emb = pl.from_arrow(lake.read("embeddings", repo))
    parts = [_node_rows(lake, repo, label) for label, t in NODE_TABLES.items() if t.embedded]
    nodes = pl.concat([p for p in parts if p.height], how="vertical") if any(p.height for p in parts) else None
    if nodes is None or emb.height == 0:
        return pa.table({})
    return _joined(nodes, emb, repo)


def entry_rows(label: str, nodes: pa.Table, embeddings: pa.Table) -> pa.Table:
    """Vector rows of a few lake rows of `label` and their `embeddings` rows (an online add's,
    without reading the lake back); the same rows `vector_rows` would give for them (a test holds
    the two together), built with pyarrow alone: an add builds one row, and a frame pass per
    column cost it ~5 ms."""
    import pyarrow.compute as pc

    dims = sorted(set(embeddings.column("dim").to_pylist()))
    if len(dims) != 1:
        raise LtmError(f"the lake's embeddings for {label} mix dimensions {dims}: re-run the embeddings stage")
    nodes = nodes.filter(pc.is_valid(nodes.column("vector_id")))
    at = {v: i for i, v in enumerate(embeddings.column("vector_id").to_pylist())}
    vids = nodes.column("vector_id").to_pylist()
    missing = [i for i, v in enumerate(vids) if v not in at]
    if missing:
        raise LtmError(
            f"{len(missing)} entities of {label} have no embedding (e.g. {nodes.column('id')[missing[0]].as_py()}): "
            "re-run the embeddings stage"
        )
    emb = embeddings.take(pa.array([at[v] for v in vids], pa.int64()))
    n, cols = nodes.num_rows, _META_SOURCES.get(label, {})
    category = NODE_TABLES[label].category.value  # type: ignore[union-attr]
    values = {
        "vector_id": nodes.column("vector_id"), "graph_entity_id": nodes.column("id"), "repo": nodes.column("repo"),
        "label": pa.array([label] * n, pa.string()),
        "category": nodes.column("category") if label == "Memory" else pa.array([category] * n, pa.string()),
        "content": pc.coalesce(nodes.column("text"), nodes.column("id")),
        **{c: (nodes.column(cols.get(c, c)) if cols.get(c, c) in nodes.column_names else pa.nulls(n, t))
           for c, t in _META_COLUMNS},
        "text_hash": emb.column("text_hash"), "model": emb.column("model"), "vector": emb.column("vector"),
    }
    schema = vector_schema(dims[0])
    return pa.Table.from_arrays([values[f.name].cast(f.type) for f in schema], schema=schema)


def _joined(nodes: pl.DataFrame, emb: pl.DataFrame, repo: str) -> pa.Table:
    dims = emb["dim"].unique().to_list()
    if len(dims) != 1:
        raise LtmError(f"the lake's embeddings for {repo} mix dimensions {dims}: re-run the embeddings stage")
    missing = nodes.join(emb, on="vector_id", how="anti")
    if missing.height:
        raise LtmError(
            f"{missing.height} entities of {repo} have no embedding (e.g. {missing['graph_entity_id'][0]}): "
            "re-run the embeddings stage"
        )
    joined = nodes.join(emb.select(["vector_id", "text_hash", "model", "vector"]), on="vector_id", how="inner")
    schema = vector_schema(dims[0])
    arrow = joined.to_arrow()
    columns = [arrow.column(f.name).cast(f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)


_VECTOR_ID = re.compile(r"vec_[0-9a-f]+")


@dataclass(frozen=True)
class UpsertStats:
    upserted: int
    inserted: int
    updated: int
    deleted: int
    total_rows: int
    vector_index: bool


COMPACT_AFTER_FRAGMENTS = 32  # small fragments left by online adds before they are compacted and indexed


class VectorStore:
    """The LanceDB database of a home.

    `model.json` is the pointer readers follow: the current table and the model and dimension of
    its vectors. A new model is written into a table of its own (`staging_table`) while readers
    keep the current one, and `switch` replaces the pointer atomically once it is complete.
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self._db = lancedb.connect(str(self.root))

    @property
    def _meta_path(self) -> Path:
        return self.root / "model.json"

    def model(self) -> dict[str, Any] | None:
        """{"model": id, "dim": n, "table": name} of the current vectors, or None before the first write."""
        if not self._meta_path.exists():
            return None
        meta = json.loads(self._meta_path.read_text(encoding="utf-8"))
        meta.setdefault("table", TABLE)  # a pointer without a table name means the first table
        return meta

    def _write_pointer(self, model: str, dim: int, table: str) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        replace_text(self._meta_path, json.dumps({"model": model, "dim": dim, "table": table}) + "\n")

    @property
    def table_name(self) -> str:
        meta = self.model()
        return meta["table"] if meta else TABLE

    def exists(self, table: str | None = None) -> bool:
        return (table or self.table_name) in self._db.list_tables().tables

    def table(self, name: str | None = None):
        name = name or self.table_name
        if not self.exists(name):
            raise NotIngestedError(f"no vectors in {self.root}: run `ltm ingest PATH` first")
        try:
            return self._db.open_table(name)
        except ValueError as e:  # listed, yet LanceDB cannot open it: its version files are gone
            raise VectorStoreError(
                f"the vector table {name} in {self.root} is damaged ({e}): run `ltm ingest` on any "
                "repository of the home to rebuild it from the lake"
            ) from e

    def rebuild_if_damaged(self, lake: Lake) -> list[str]:
        """When the current table cannot be opened, drop it and write every partition's rows again
        from the lake (the source of truth); returns the partitions rewritten ([] if it was sound)."""
        if not self.exists():
            return []
        try:
            self.table()
            return []
        except VectorStoreError as e:
            log.warning("%s", e)
        self._db.drop_table(self.table_name)
        rebuilt = []
        for repo in lake.repos():
            rows = vector_rows(lake, repo)
            if rows.num_rows:
                self.upsert_repo(repo, rows)
                rebuilt.append(repo)
        return rebuilt

    def check_model(self, model: str, dim: int) -> None:
        """DimensionMismatchError unless the current table holds vectors of `model` and `dim` (or none)."""
        meta = self.model()
        if meta and (meta["dim"] != dim or meta["model"] != model):
            raise DimensionMismatchError(
                f"the vector table holds {meta['model']} vectors of dimension {meta['dim']}, "
                f"this run embeds with {model} (dimension {dim}): use the same embedder as before, "
                "switch the home with `ltm reembed`, or ingest into a new --home"
            )

    _check_model = check_model

    def staging_table(self, model: str, dim: int) -> str:
        """The table a new model's vectors are written into before `switch` (created empty if new)."""
        name = f"{TABLE}_{hashlib.sha1(f'{model}:{dim}'.encode()).hexdigest()[:10]}"
        if name == self.table_name:
            raise LtmError(f"{model} (dimension {dim}) is already the current model of {self.root}")
        if not self.exists(name):
            self._db.create_table(name, schema=vector_schema(dim))
        return name

    def switch(self, table: str, model: str, dim: int) -> str | None:
        """Point readers at `table` (atomic), then drop tables older than the previous one."""
        previous = self.table_name if self.model() else None
        self._write_pointer(model, dim, table)
        keep = {table, previous}
        for name in self._db.list_tables().tables:
            if name.startswith(TABLE) and name not in keep:
                self._db.drop_table(name)
        return previous

    def drop_stale_tables(self, older_than: timedelta) -> list[str]:
        """Drop the tables a model switch left behind, once the switch is older than `older_than`.

        `switch` keeps the previous table so a reader that read the old pointer a moment ago can
        finish; past the retention nobody can still hold it. Tables being filled by a `reembed`
        in progress are newer than the pointer and stay.
        """
        meta = self.model()
        if meta is None:
            return []
        switched_at = datetime.fromtimestamp(self._meta_path.stat().st_mtime, tz=timezone.utc)
        if datetime.now(timezone.utc) - switched_at < older_than:
            return []
        dropped = []
        for name in self._db.list_tables().tables:
            if name.startswith(TABLE) and name != meta["table"] and self._modified_before(name, switched_at):
                self._db.drop_table(name)
                dropped.append(name)
        return dropped

    def _modified_before(self, table: str, moment: datetime) -> bool:
        folder = self.root / f"{table}.lance"
        newest = max((p.stat().st_mtime for p in folder.rglob("*") if p.is_file()), default=0.0)
        return datetime.fromtimestamp(newest, tz=timezone.utc) <= moment

    def upsert_repo(self, repo: str, rows: pa.Table, table: str | None = None) -> UpsertStats:
        """Make the repository's rows equal `rows`: upsert by vector_id, delete what left.

        Into the current table (its model and dimension must match), or into `table`, a staging
        table from `staging_table` whose schema fixes the dimension.
        """
        if not is_valid_repo_key(repo):  # the key is used as a literal in the delete filter
            raise LtmError(f"invalid repository key {repo!r}")
        name = table or self.table_name
        if rows.num_columns == 0:
            if self.exists(name):
                deleted = self.table(name).count_rows(f"repo = '{repo}'")
                self.table(name).delete(f"repo = '{repo}'")
                return UpsertStats(0, 0, 0, deleted, self.table(name).count_rows(), False)
            return UpsertStats(0, 0, 0, 0, 0, False)
        dim = rows.schema.field("vector").type.list_size
        model = rows.column("model")[0].as_py()
        if table is None:
            self.check_model(model, dim)
            if not self.exists():
                self._db.create_table(TABLE, schema=vector_schema(dim))
                self._write_pointer(model, dim, TABLE)
                name = TABLE
        else:
            want = self.table(name).schema.field("vector").type.list_size
            if want != dim:
                raise DimensionMismatchError(f"table {name} holds vectors of dimension {want}, these rows have {dim}")
        tbl = self.table(name)
        self._add_missing_columns(tbl)
        with progress.tracker("vectors", rows.num_rows, "rows") as bar:  # one merge: the bar shows start and end
            res = (
                tbl.merge_insert("vector_id")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(f"repo = '{repo}'")
                .execute(rows)
            )
            bar.advance(rows.num_rows)
        vector_index = self._index(tbl)
        return UpsertStats(rows.num_rows, res.num_inserted_rows, res.num_updated_rows, res.num_deleted_rows, tbl.count_rows(), vector_index)

    def upsert_rows(self, rows: pa.Table, new: bool = False) -> int:
        """Upsert rows by vector_id and delete nothing (online adds); searchable at once. The small
        fragments adds leave are folded by `compact_fragments` (`ltm.memory.compaction`).

        `new`: the caller knows no row has these vector_ids, so they are appended (no merge: an
        online add's cost on a large table).
        """
        dim = rows.schema.field("vector").type.list_size
        model = rows.column("model")[0].as_py()
        self._check_model(model, dim)
        created = not self.exists()
        if created:
            self._db.create_table(TABLE, schema=vector_schema(dim))
            self._write_pointer(model, dim, TABLE)
        tbl = self.table()
        self._add_missing_columns(tbl)
        if new and not created:
            tbl.add(rows)
        else:
            tbl.merge_insert("vector_id").when_matched_update_all().when_not_matched_insert_all().execute(rows)
        if created:
            self._index(tbl)
        return rows.num_rows

    def fragmented(self, times: int = 1) -> bool:
        """Whether online adds left `times` x `COMPACT_AFTER_FRAGMENTS` small fragments or more."""
        if not self.exists():
            return False
        return self.table().stats()["fragment_stats"]["num_small_fragments"] >= COMPACT_AFTER_FRAGMENTS * times

    def compact_fragments(self) -> bool:
        """Compact and index the small fragments online adds left, if there are enough; True if it did.

        Every add leaves a small fragment whose rows no index covers: past a few dozen, each search
        scans them all (5 ms became 50 ms after 400 adds on 100,000 rows)."""
        if not self.fragmented():
            return False
        self.table().optimize(cleanup_older_than=timedelta(days=1))
        return True

    @staticmethod
    def _add_missing_columns(tbl) -> None:
        """Add the metadata columns a table written by an older version lacks (all null there: its
        memories read as shared, with no agent and no expiry)."""
        have = set(tbl.schema.names)
        missing = [pa.field(c, t) for c, t in _META_COLUMNS if c not in have]
        if missing:
            tbl.add_columns(missing)

    def delete_ids(self, vector_ids: list[str]) -> None:
        """Delete the rows of these vector ids (each `vec_` and hex digits, checked: they are written
        into the filter)."""
        bad = [v for v in vector_ids if not _VECTOR_ID.fullmatch(v)]
        if bad:
            raise LtmError(f"not a vector id: {bad[0]!r} (expected vec_ and hex digits)")
        if vector_ids:
            self.table().delete("vector_id IN (" + ", ".join(f"'{v}'" for v in vector_ids) + ")")

    def _index(self, tbl) -> bool:
        existing = {i.name for i in tbl.list_indices()}
        for col in ("vector_id", "graph_entity_id", "repo"):
            if f"{col}_idx" not in existing:
                tbl.create_index(col, config=BTree())
        if "content_idx" not in existing:
            tbl.create_index("content", config=FTS())
        has_vector_index = "vector_idx" in existing
        if not has_vector_index and tbl.count_rows() >= VECTOR_INDEX_MIN_ROWS:
            tbl.create_index("vector", config=IvfPq(distance_type="cosine"))
            has_vector_index = True
        tbl.optimize(cleanup_older_than=timedelta(days=1))
        return has_vector_index

    def links(self, repo: str | None = None, table: str | None = None) -> dict[str, str | None]:
        """vector_id -> graph_entity_id for every row (of one repository, or all) of the current table."""
        if not self.exists(table):
            return {}
        q = self.table(table).search().select(["vector_id", "graph_entity_id"])
        if repo:
            if not is_valid_repo_key(repo):
                raise LtmError(f"invalid repository key {repo!r}")
            q = q.where(f"repo = '{repo}'")
        t = q.limit(None).to_arrow()
        return dict(zip(t.column("vector_id").to_pylist(), t.column("graph_entity_id").to_pylist()))

    def count(self) -> int:
        return self.table().count_rows() if self.exists() else 0

    def search(self, vector: np.ndarray, top_k: int = 10) -> list[dict[str, Any]]:
        """Nearest rows by cosine distance, without the vectors themselves."""
        rows = nearest(self.table(), vector, top_k).to_list()
        for r in rows:
            r.pop("vector", None)
        return rows
