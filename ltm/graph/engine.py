"""The one graph adapter: every graph-database call in the project goes through here.

Two engines sit behind it, built from the same C++ core with the same Cypher and COPY from Parquet:
`kuzu` (the default; archived upstream, 0.11.3 is its last release) and `ladybug` (LadybugDB, its
maintained fork). A home records its engine in `settings.json` (`graph_engine`); the environment
variable `LTM_GRAPH_ENGINE` is the default for homes that record none. A build's file suffix
names its engine (`graph/builds/<id>.kuzu`, `<id>.lbug`), so a reader opens CURRENT with the
engine that wrote it.

The two native libraries cannot both load in one process (they register the same Python types;
the second crashes it), so the first engine a process opens is the only one it can open: a build
of the other engine is refused with a `GraphError` that says so. Neither engine's full-text
extension is used (LadybugDB's would download itself): retrieval ranks text with LanceDB's.

Each engine allows one READ_WRITE database per file across processes (or many READ_ONLY), and
does not refuse a second `Database` on the same path inside one process: `open_database` guards that.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa

from ltm.errors import GraphError
from ltm.schema import NODE_TABLES, REL_TABLES, graph_columns

Connection = Any  # the engine's Connection (kuzu.Connection or ladybug.Connection)
PreparedStatement = Any


@dataclass(frozen=True)
class Engine:
    """A graph engine: its Python module, its build-file suffix and magic bytes."""

    name: str
    module: str
    suffix: str
    magic: bytes


ENGINES: dict[str, Engine] = {
    "kuzu": Engine("kuzu", "kuzu", ".kuzu", b"KUZU"),
    "ladybug": Engine("ladybug", "ladybug", ".lbug", b"LBUG"),
}
DEFAULT_ENGINE = "kuzu"
ENV_VAR = "LTM_GRAPH_ENGINE"


def engine(name: str) -> Engine:
    """The engine called `name`; GraphError naming the choices for any other name."""
    try:
        return ENGINES[name]
    except KeyError:
        raise GraphError(
            f"unknown graph engine {name!r}: use one of {', '.join(ENGINES)} (--graph-engine, or {ENV_VAR})"
        ) from None


def default_engine() -> str:
    """The engine of a home that records none: `LTM_GRAPH_ENGINE` if set, else kuzu."""
    return engine(os.environ.get(ENV_VAR) or DEFAULT_ENGINE).name


def engine_of(path: Path) -> Engine:
    """The engine that wrote the build at `path`, from its suffix."""
    for e in ENGINES.values():
        if Path(path).name.endswith(e.suffix):
            return e
    raise GraphError(f"{path} is not a graph build (its name ends in none of {[e.suffix for e in ENGINES.values()]})")


_loaded: str | None = None
_load_guard = threading.Lock()


def module(e: Engine) -> ModuleType:
    """Import the engine's module; refuses a second engine in one process (the other is loaded)."""
    global _loaded
    with _load_guard:
        others = [o for o in ENGINES.values() if o.name != e.name and (o.name == _loaded or o.module in sys.modules)]
        if others:
            raise GraphError(
                f"this process already loaded the {others[0].name} graph engine; {e.name} cannot load beside it "
                f"(both are the same native library): run this in a new process (for a server: restart it after "
                f"switching a home's --graph-engine)"
            )
        try:
            mod = importlib.import_module(e.module)
        except ImportError as err:
            raise GraphError(f"the {e.name} graph engine is not installed ({err}): pip install {e.module}") from err
        _loaded = e.name
        return mod


def loaded_engine() -> str | None:
    """The engine this process has loaded, if any."""
    return _loaded


def _conn_engine(conn: Connection) -> Engine:
    top = type(conn).__module__.split(".")[0]
    for e in ENGINES.values():
        if e.module == top:
            return e
    raise GraphError(f"{type(conn)} is not a connection of a known graph engine")


_open_paths: dict[str, str] = {}
_guard = threading.Lock()

_GRAPH_TYPES = {
    pa.string(): "STRING",
    pa.large_string(): "STRING",
    pa.int32(): "INT32",
    pa.int64(): "INT64",
    pa.float64(): "DOUBLE",
    pa.float32(): "FLOAT",
    pa.bool_(): "BOOLEAN",
    pa.list_(pa.string()): "STRING[]",
}


def graph_type(t: pa.DataType) -> str:
    if pa.types.is_timestamp(t):
        return "TIMESTAMP"
    try:
        return _GRAPH_TYPES[t]
    except KeyError as e:
        raise GraphError(f"no graph column type for Arrow type {t}") from e


def schema_ddl() -> list[str]:
    """CREATE statements for every node and rel table of the lake schema."""
    stmts = []
    for t in NODE_TABLES.values():
        cols = ", ".join(f"{f.name} {graph_type(f.type)}" for f in graph_columns(t.label))
        stmts.append(f"CREATE NODE TABLE {t.label}({cols}, PRIMARY KEY(id))")
    for r in REL_TABLES.values():
        pairs = ", ".join(f"FROM {a} TO {b}" for a, b in r.pairs)
        props = "".join(f", {f.name} {graph_type(f.type)}" for f in r.props)
        stmts.append(f"CREATE REL TABLE {r.name}({pairs}{props})")
    return stmts


def _check_header(path: Path, e: Engine) -> None:
    """Refuse a file that is not a database of engine `e` before the engine reads it: on random bytes
    Kuzu 0.11.3 crashes the process (SIGSEGV) instead of raising."""
    p = Path(path)
    if not p.is_file():
        return
    with open(p, "rb") as f:
        head = f.read(len(e.magic))
    if head != e.magic:
        raise GraphError(
            f"{p} is not a {e.name} database (damaged or overwritten): run `ltm ingest` to rebuild the graph "
            "from the lake"
        )


def _database(path: Path, e: Engine, read_only: bool, buffer_pool_mb: int) -> Any:
    _check_header(path, e)
    mod = module(e)
    try:
        return mod.Database(str(path), read_only=read_only, buffer_pool_size=buffer_pool_mb * 1024 * 1024)
    except RuntimeError as err:
        if "Mmap for size" not in str(err):
            raise
    # Each open database reserves 8 TB of address space. Databases of readers that were never
    # closed (HybridLTM without close(), held in a reference cycle) wait for the cycle collector;
    # collect them and try once more instead of failing the reader.
    gc.collect()
    return mod.Database(str(path), read_only=read_only, buffer_pool_size=buffer_pool_mb * 1024 * 1024)


@contextmanager
def open_database(path: Path, read_only: bool, buffer_pool_mb: int = 512, engine_name: str | None = None) -> Iterator[Connection]:
    """A connection to the database at `path`, with the engine its suffix names (or `engine_name`, for
    a file another tool wrote); refuses a second open of a path being written, and a path of another
    engine than the one this process loaded."""
    e = engine(engine_name) if engine_name else engine_of(path)
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
            db = _database(path, e, read_only, buffer_pool_mb)
        except RuntimeError as err:
            raise GraphError(f"cannot open graph {path}: {err}") from err
        conn = module(e).Connection(db)
        yield conn
    finally:
        if conn is not None:
            conn.close()
        if db is not None:
            db.close()
        if not read_only:
            with _guard:
                _open_paths.pop(key, None)


def query(conn: Connection, cypher: str | PreparedStatement, params: dict[str, Any] | None = None) -> list[list[Any]]:
    """Run a parameterised query (text or prepared) and return all rows. Never pass `{}`: it skips binding."""
    result = conn.execute(cypher, params or None)
    rows = result.get_all()
    result.close()
    return rows


def query_arrow(conn: Connection, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
    """Run a parameterised query and return its rows as one Arrow table (bulk reads)."""
    result = conn.execute(cypher, params or None)
    table = result.get_as_arrow()
    result.close()
    return table


def prepare(conn: Connection, cypher: str) -> PreparedStatement:
    """Parse and plan a query once, to run it many times with `query(conn, prepared, params)`."""
    stmt = module(_conn_engine(conn)).PreparedStatement(conn, cypher)
    if not stmt.is_success():
        raise GraphError(f"cannot prepare query: {stmt.get_error_message()}")
    return stmt
