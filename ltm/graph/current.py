"""The `graph/CURRENT` pointer: which build readers open, and the builds on disk.

Kept apart from `build.py` so that a reader (a cold `ltm query`, the MCP server) finds the build
without importing what building needs (polars, the amend planner, the COPY code).
"""

from __future__ import annotations

import re
from pathlib import Path

from ltm.atomic import replace_text
from ltm.errors import GraphError
from ltm.graph.engine import ENGINES

# what `switch` writes: a build id and the suffix of its engine
BUILD_NAME = re.compile(r"[0-9A-Za-z_-]+(" + "|".join(re.escape(e.suffix) for e in ENGINES.values()) + ")")


def builds_dir(graph_root: Path) -> Path:
    return graph_root / "builds"


def current_build(graph_root: Path) -> Path | None:
    """The build that readers open, or None before the first build.

    CURRENT holds a build id, a plain name inside `graph/builds/`; anything else (a path, `..`, a
    link out of the folder) is refused, so a tampered pointer never makes a reader open a file
    outside the home. `build_graph` heals such a pointer by building anew.
    """
    pointer = graph_root / "CURRENT"
    if not pointer.exists():
        return None
    name = pointer.read_text(encoding="utf-8", errors="replace").strip()
    builds = builds_dir(graph_root)
    build = builds / name
    inside = BUILD_NAME.fullmatch(name) is not None and build.resolve().parent == builds.resolve()
    if not inside:
        raise GraphError(
            f"{pointer} names {name[:80]!r}, which is not a build in {builds}: run `ltm ingest` to rebuild "
            "the graph from the lake (or remove that file)"
        )
    return build if build.exists() else None


def list_builds(graph_root: Path) -> list[Path]:
    """The builds on disk of every engine, oldest first (build ids sort by time)."""
    folder = builds_dir(graph_root)
    return sorted((p for e in ENGINES.values() for p in folder.glob("*" + e.suffix)), key=lambda p: p.name)


def switch(graph_root: Path, build_id: str) -> None:
    """Point readers at build `build_id` (one atomic replace of CURRENT)."""
    replace_text(graph_root / "CURRENT", build_id + "\n")
