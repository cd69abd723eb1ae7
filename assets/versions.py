"""Code versions of the assets: a hash of the source that decides what an asset writes.

Dagster compares an asset's `code_version` with the one its last materialization recorded and
marks the asset (and what depends on it) stale when they differ, so a changed stage module or a
changed tree-sitter query file shows as "code version changed" in the UI before anything reruns.
The hash is of file bytes, computed when the definitions load; a change in a helper that the named
modules import is not seen (name that module too when it matters).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterable
from pathlib import Path

QUERIES = Path(__file__).resolve().parents[1] / "ltm" / "extract" / "queries"


def module_file(module: str) -> Path:
    """The source file of a module, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ValueError(f"no source file for module {module!r}: name a module of this project")
    return Path(spec.origin)


def files_version(files: Iterable[Path]) -> str:
    """12 hex digits over the files' names and bytes, in name order (the order given does not matter)."""
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in files):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def code_version(*modules: str, queries: bool = False) -> str:
    """The version of the named modules' source, plus every `ltm/extract/queries/*.scm` when `queries`."""
    files = [module_file(m) for m in modules]
    if queries:
        files += sorted(QUERIES.glob("*.scm"))
    return files_version(files)
