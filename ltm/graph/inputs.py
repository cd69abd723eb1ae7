"""What a graph build was made from, so a build with the same inputs is never made twice.

A build reads the node, past, side and relationship tables of the lake. Their bytes (the lake's
writers are deterministic: the same rows give the same file), the schema and the code of the
graph package make its digest, recorded beside the build with the build file's size and time.
The next build with the same digest keeps the current build instead, unless that file changed
since (a damaged build is built again). The digest is made of one digest per lake partition
(`part_digests`), so the next build also knows which partitions changed (`ltm.graph.amend`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ltm.graph.overlay import LINK_TABLES, PARTITION
from ltm.lake import Lake
from ltm.part_files import part_file_keys
from ltm.schema import NODE_TABLES, REL_TABLES, SIDE_TABLES

_CODE = [Path(__file__).parent, Path(__file__).parents[1] / "schema.py"]


def _tables() -> list[str]:
    past = [t.past_table for t in NODE_TABLES.values() if t.past_table]
    return sorted({*NODE_TABLES, *past, *(s.name for s in SIDE_TABLES.values()), *REL_TABLES})


def _hash_file(h: "hashlib._Hash", path: Path, root: Path) -> None:
    h.update(str(path.relative_to(root)).encode() + b"\0")
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)


def code_digest(engine: str = "kuzu") -> str:
    """The digest of how a build is made: the engine, the schema and the graph code."""
    h = hashlib.sha1(f"engine={engine}\n".encode())
    for code in _CODE:
        for f in sorted(code.glob("*.py")) if code.is_dir() else [code]:
            _hash_file(h, f, code.parent)
    return h.hexdigest()


def part_digests(lake: Lake) -> dict[str, str]:
    """partition key -> the digest of its files in every table a build reads."""
    hashes: dict[str, "hashlib._Hash"] = {}
    for table in _tables():
        for f in lake.files(table):
            part = f.parent.name.removeprefix("repo=")
            _hash_file(hashes.setdefault(part, hashlib.sha1()), f, lake.root)
    return {part: h.hexdigest() for part, h in sorted(hashes.items())}


def digest(lake: Lake, engine: str = "kuzu", parts: dict[str, str] | None = None) -> str:
    """The digest of everything a build reads: the lake tables it copies (`parts`, else read now), the
    schema, the graph code."""
    parts = part_digests(lake) if parts is None else parts
    return hashlib.sha1(json.dumps([code_digest(engine), parts], sort_keys=True).encode()).hexdigest()


def _sidecar(build: Path) -> Path:
    return build.with_name(build.name + ".inputs.json")


def _file_state(build: Path) -> list[int]:
    st = build.stat()
    return [st.st_size, st.st_mtime_ns]


def record(build: Path, inputs: str, stats: dict[str, Any]) -> None:
    """Note beside a finished build what it was made from and what it holds."""
    _sidecar(build).write_text(json.dumps({"inputs": inputs, "file": _file_state(build), **stats}), encoding="utf-8")


def noted(build: Path | None) -> dict[str, Any] | None:
    """What `record` noted beside `build`, when the build file is untouched since; else None."""
    if build is None:
        return None
    try:
        note = json.loads(_sidecar(build).read_text(encoding="utf-8"))
        return note if note.get("file") == _file_state(build) else None
    except (OSError, ValueError):
        return None


def reusable(build: Path | None, inputs: str) -> dict[str, Any] | None:
    """The recorded counts of `build` when it was made from `inputs` and is untouched since, else None."""
    if build is None:
        return None
    try:
        noted = json.loads(_sidecar(build).read_text(encoding="utf-8"))
        return noted if noted.get("inputs") == inputs and noted.get("file") == _file_state(build) else None
    except (OSError, ValueError):
        return None


def overlay_files(lake: Lake) -> list[list[Any]]:
    """[path under the lake, size, mtime_ns] of the online memories' files (the `memories` partition
    of Memory and the links) as they are now: taken before a build copies them, recorded beside it,
    so the overlay of that build never reads a file whose rows the build already holds."""
    return [[str(Path(path).relative_to(lake.root)), size, mtime]
            for table in ("Memory", *LINK_TABLES) for path, size, mtime in part_file_keys(lake.root / table / PARTITION)]


def copied_overlay_files(build: Path | None, lake_root: Path) -> frozenset[tuple[str, int, int]]:
    """The (file, size, mtime_ns) keys `overlay_files` recorded for `build`; empty when unknown."""
    if build is None:
        return frozenset()
    try:
        noted = json.loads(_sidecar(build).read_text(encoding="utf-8")).get("overlay_files") or []
        return frozenset((str(Path(lake_root) / p), int(size), int(mtime)) for p, size, mtime in noted)
    except (OSError, ValueError, TypeError):
        return frozenset()
