"""Memories in the lake: import into the `memories` partition, read every memory, index the code.

Imported and online memories are merged into `lake/Memory/repo=memories/` by id (a re-import of
the same entry replaces it, never duplicates it), under the home's `memories` lock. Their links
and embeddings live in the same partition key of `RELATES_TO_*` and `embeddings`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import polars as pl
import pyarrow as pa

from ltm.errors import LtmError
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.linking import CodeIndex
from ltm.memory import expiry, provenance
from ltm.memory.records import MEMORY_PARTITION, ImportReport, MemoryInputError, with_scope
from ltm.schema import lake_schema
from ltm.settings import MemorySource

Format = Literal["jsonl", "tracemem", "amplihack", "docs"]
FORMATS: tuple[str, ...] = ("jsonl", "tracemem", "amplihack", "docs")


def read_memories(lake: Lake) -> pl.DataFrame:
    """Every Memory row of the lake: imported, online and documentation memories."""
    return pl.from_arrow(lake.read("Memory"))  # type: ignore[return-value]


def merge_table(lake: Lake, table: str, new: pa.Table, key: list[str], partition: str = MEMORY_PARTITION) -> pa.Table:
    """The partition's rows with `new` merged in (same key: the new row wins), in the lake schema."""
    old = lake.read(table, partition)
    schema = lake_schema(table)
    both = pa.concat_tables([new.cast(schema), old]) if old.num_rows else new.cast(schema)
    df = pl.from_arrow(both).unique(key, keep="first", maintain_order=True)
    return df.to_arrow().cast(schema)


def save_memories(lake: Lake, rows: list[dict[str, Any]]) -> tuple[int, int]:
    """Merge rows into the `memories` partition by id; returns (new ids, replaced ids)."""
    if not rows:
        return 0, 0
    new = pa.Table.from_pylist(rows, schema=lake_schema("Memory"))
    existing = set(lake.read("Memory", MEMORY_PARTITION, columns=["id"]).column("id").to_pylist())
    ids = set(new.column("id").to_pylist())
    merged = merge_table(lake, "Memory", new, ["id"])
    with lake.write(MEMORY_PARTITION) as w:
        w.write(provenance.REL, provenance.partition_rows(merged))
        w.write("Memory", merged)
    return len(ids - existing), len(ids & existing)


def read_source(path: Path, fmt: str, report: ImportReport) -> Iterable[dict[str, Any]]:
    """The rows of one source file in a format of `FORMATS`."""
    from ltm.memory.docs import read_doc_file
    from ltm.memory.sources import read_amplihack, read_jsonl, read_tracemem

    readers = {"jsonl": read_jsonl, "tracemem": read_tracemem, "amplihack": read_amplihack, "docs": read_doc_file}
    if fmt not in readers:
        raise LtmError(f"unknown memory format {fmt!r}: use one of {', '.join(FORMATS)}")
    if not path.exists():
        raise LtmError(f"memory source {path} does not exist: pass an existing file")
    return readers[fmt](path, report)


def import_memories(home: Home, path: str | Path, fmt: str, namespace: str | None = None,
                    agent_id: str | None = None) -> ImportReport:
    """Read a source and merge its good entries into the home's lake; bad lines are reported.

    An entry without its own namespace / agent_id gets `namespace` (else `shared`) / `agent_id`;
    working and sensory entries get their default expiry (`ltm.memory.expiry`), and an entry that
    has already expired is not stored (`report.expired`).
    """
    path = Path(path)
    report = ImportReport(source=f"{fmt}:{path}")
    rows: dict[str, dict[str, Any]] = {}
    now, ttls = datetime.now(timezone.utc), expiry.ttl_hours(home.settings().other)
    for row in read_source(path, fmt, report):
        rows.pop(row["id"], None)  # a later line with the same id replaces an earlier one
        try:
            row = expiry.with_expiry(with_scope(row, namespace, agent_id), ttls, now)
        except MemoryInputError as e:  # the readers numbered the lines; this one is named by its id
            report.skipped.append((0, f"{row['id']}: {e}"))
            continue
        if expiry.is_expired(row, now):
            report.expired += 1
            continue
        rows[row["id"]] = row
    with home.lock("memories", timeout=600):
        save_memories(home.open_lake(), list(rows.values()))
    report.loaded = len(rows)
    return report


_CODE_TABLES = ("File", "Module", "BELONGS_TO", "Function", "Class")
_INDEXES: dict[Path, tuple[tuple, CodeIndex]] = {}  # lake root -> (its code tables' files, index)
_MAX_INDEXES = 4


def _code_state(lake: Lake) -> tuple | None:
    """What the code tables are now: each Parquet file's path, inode, size and mtime (a stage writes
    new files); None while a partition is being swapped under us (then nothing is cached)."""
    out = []
    for table in _CODE_TABLES:
        for f in lake.files(table):
            try:
                st = f.stat()
            except FileNotFoundError:
                return None
            out.append((str(f), st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def code_index(lake: Lake) -> CodeIndex:
    """Files, functions and classes of every repository in the lake, with their module names.

    Kept in the process while the lake's code tables are unchanged, so online adds (each links one
    memory) do not rebuild it from every repository's rows; an ingest that rewrites a partition
    writes new files, and the next call builds it again.
    """
    root, state = lake.root.resolve(), _code_state(lake)
    hit = _INDEXES.get(root)
    if hit is not None and state is not None and hit[0] == state:
        return hit[1]
    index = _build_code_index(lake)
    if state is None:
        return index
    if root not in _INDEXES and len(_INDEXES) >= _MAX_INDEXES:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[root] = (state, index)
    return index


def _build_code_index(lake: Lake) -> CodeIndex:
    files = pl.from_arrow(lake.read("File", columns=["id", "repo", "path"]))
    modules = pl.from_arrow(lake.read("Module", columns=["id", "name"])).rename({"id": "mod", "name": "module"})
    belongs = pl.from_arrow(lake.read("BELONGS_TO", columns=["src", "dst"])).rename({"src": "file_id", "dst": "mod"})
    file_module = belongs.join(modules, on="mod", how="inner").select("file_id", "module").unique("file_id")
    parts = []
    for label in ("Function", "Class"):
        cols = ["id", "repo", "name", "qualified_name", "file_path"]
        t = pl.from_arrow(lake.read(label, columns=cols + ["text"] if label == "Function" else cols))
        if label == "Class":  # a class's members are read through their own text (ltm.memory.members)
            t = t.with_columns(pl.lit(None, dtype=pl.String).alias("text"))
        parts.append(t.with_columns(pl.lit(label).alias("label")))
    ents = pl.concat(parts, how="vertical").with_columns(
        (pl.lit("file:") + pl.col("repo") + ":" + pl.col("file_path")).alias("file_id")
    )
    ents = ents.join(file_module, on="file_id", how="left").select(
        "id", "label", "repo", "name", "qualified_name", "file_path", "module", "text"
    )
    return CodeIndex.build(files, ents)  # type: ignore[arg-type]


def register_source(home: Home, path: str | Path, fmt: str, namespace: str | None = None,
                    agent_id: str | None = None) -> None:
    """Remember a source in the home's settings so every later ingest re-reads it (into the same
    namespace and agent)."""
    entry = MemorySource(format=fmt, path=Path(path).resolve().as_posix(), namespace=namespace, agent_id=agent_id)
    sources = tuple(s for s in home.settings().memory_sources if (s.format, s.path) != (entry.format, entry.path))
    home.update_settings(memory_sources=sources + (entry,))


def unregister_source(home: Home, path: str | Path) -> list[str]:
    """Forget the registered sources at `path` (any format; the path as given or resolved): later
    ingests no longer re-read them; what they loaded stays. Returns the `format:path` entries removed."""
    wanted = {str(path), Path(path).resolve().as_posix()}
    kept = tuple(s for s in home.settings().memory_sources if s.path not in wanted)
    removed = [f"{s.format}:{s.path}" for s in home.settings().memory_sources if s.path in wanted]
    if removed:
        home.update_settings(memory_sources=kept)
    return removed


def registered_sources(home: Home) -> list[tuple[str, str]]:
    """(format, path) of the sources `ltm memory import` registered in the home."""
    return [(s.format, s.path) for s in home.settings().memory_sources]


def _source_scopes(home: Home) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    return {(s.format, s.path): (s.namespace, s.agent_id) for s in home.settings().memory_sources}


def parse_source(spec: str) -> tuple[str, str]:
    """`format:path` -> (format, path), refusing an unknown format."""
    fmt, sep, path = spec.partition(":")
    if not sep or fmt not in FORMATS or not path:
        raise LtmError(f"memory source {spec!r} is not 'format:path' with a format of {', '.join(FORMATS)}")
    return fmt, path


def refresh_sources(home: Home, extra: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Re-import every registered source and every `format:path` in `extra`; one report each.

    A source that is missing or unreadable is reported with its error and skipped: it never
    fails the run, and what it loaded before stays in the lake.
    """
    reports = []
    scopes = _source_scopes(home)
    for fmt, path in dict.fromkeys(registered_sources(home) + [parse_source(s) for s in extra]):
        try:
            reports.append(import_memories(home, path, fmt, *scopes.get((fmt, path), (None, None))).to_dict())
        except LtmError as e:
            reports.append({"source": f"{fmt}:{path}", "loaded": 0, "error": str(e)})
    return reports
