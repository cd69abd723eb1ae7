"""The one adapter around Kuzu. Every Kuzu call in the project goes through here.

Kuzu allows one READ_WRITE database per file across processes (or many READ_ONLY), and does not
refuse a second `Database` on the same path inside one process: `open_database` guards that.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kuzu
import pyarrow as pa

from ltm.errors import GraphError
from ltm.schema import NODE_TABLES, REL_TABLES, graph_columns

_open_paths: dict[str, str] = {}
_guard = threading.Lock()

_KUZU_TYPES = {
    pa.string(): "STRING",
    pa.large_string(): "STRING",
    pa.int32(): "INT32",
    pa.int64(): "INT64",
    pa.float64(): "DOUBLE",
    pa.float32(): "FLOAT",
    pa.bool_(): "BOOLEAN",
    pa.list_(pa.string()): "STRING[]",
}


def kuzu_type(t: pa.DataType) -> str:
    if pa.types.is_timestamp(t):
        return "TIMESTAMP"
    try:
        return _KUZU_TYPES[t]
    except KeyError as e:
        raise GraphError(f"no Kuzu type for Arrow type {t}") from e


def schema_ddl() -> list[str]:
    """CREATE statements for every node and rel table of the lake schema."""
    stmts = []
    for t in NODE_TABLES.values():
        cols = ", ".join(f"{f.name} {kuzu_type(f.type)}" for f in graph_columns(t.label))
        stmts.append(f"CREATE NODE TABLE {t.label}({cols}, PRIMARY KEY(id))")
    for r in REL_TABLES.values():
        pairs = ", ".join(f"FROM {a} TO {b}" for a, b in r.pairs)
        props = "".join(f", {f.name} {kuzu_type(f.type)}" for f in r.props)
        stmts.append(f"CREATE REL TABLE {r.name}({pairs}{props})")
    return stmts


_MAGIC = b"KUZU"  # the first bytes of every Kuzu database file


def _check_header(path: Path) -> None:
    """Refuse a file that is not a Kuzu database before Kuzu reads it: on random bytes Kuzu 0.11.3
    crashes the process (SIGSEGV) instead of raising."""
    p = Path(path)
    if not p.is_file():
        return
    with open(p, "rb") as f:
        head = f.read(len(_MAGIC))
    if head != _MAGIC:
        raise GraphError(
            f"{p} is not a Kuzu database (damaged or overwritten): run `ltm ingest` to rebuild the graph "
            "from the lake"
        )


def _database(path: Path, read_only: bool, buffer_pool_mb: int) -> kuzu.Database:
    _check_header(path)
    try:
        return kuzu.Database(str(path), read_only=read_only, buffer_pool_size=buffer_pool_mb * 1024 * 1024)
    except RuntimeError as e:
        if "Mmap for size" not in str(e):
            raise
    # Each open database reserves 8 TB of address space. Databases of readers that were never
    # closed (HybridLTM without close(), held in a reference cycle) wait for the cycle collector;
    # collect them and try once more instead of failing the reader.
    gc.collect()
    return kuzu.Database(str(path), read_only=read_only, buffer_pool_size=buffer_pool_mb * 1024 * 1024)


@contextmanager
def open_database(path: Path, read_only: bool, buffer_pool_mb: int = 512) -> Iterator[kuzu.Connection]:
    """A connection to the database at `path`; refuses a second open of a path being written."""
    key = str(Path(path).resolve())
    with _guard:
        held = _open_paths.get(key)
        if held == "rw" or (held and not read_only):
            raise GraphError(f"{path} is already open for writing in this process")
        if not read_only:
            _open_paths[key] = "rw"
    db = conn = None
    try:
        try:
            db = _database(path, read_only, buffer_pool_mb)
        except RuntimeError as e:
            raise GraphError(f"cannot open graph {path}: {e}") from e
        conn = kuzu.Connection(db)
        yield conn
    finally:
        if conn is not None:
            conn.close()
        if db is not None:
            db.close()
        if not read_only:
            with _guard:
                _open_paths.pop(key, None)


def query(conn: kuzu.Connection, cypher: str | kuzu.PreparedStatement, params: dict[str, Any] | None = None) -> list[list[Any]]:
    """Run a parameterised query (text or prepared) and return all rows. Never pass `{}`: it skips binding."""
    result = conn.execute(cypher, params or None)
    rows = result.get_all()
    result.close()
    return rows


def query_arrow(conn: kuzu.Connection, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
    """Run a parameterised query and return its rows as one Arrow table (bulk reads)."""
    result = conn.execute(cypher, params or None)
    table = result.get_as_arrow()
    result.close()
    return table


def prepare(conn: kuzu.Connection, cypher: str) -> kuzu.PreparedStatement:
    """Parse and plan a query once, to run it many times with `query(conn, prepared, params)`."""
    stmt = kuzu.PreparedStatement(conn, cypher)
    if not stmt.is_success():
        raise GraphError(f"cannot prepare query: {stmt.get_error_message()}")
    return stmt
