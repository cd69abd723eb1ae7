"""Copy-on-write amendments of the current graph build (for online adds between batch builds).

Builds are immutable while readers use them: an amendment copies the current build's database
file to a new build, applies the change in that copy, and switches `graph/CURRENT` to it, all
under the home's graph lock. Readers keep the old build until they reopen; a failure leaves the
old build serving. The next batch build (from the lake) replaces the amended one.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path


from ltm.graph.build import _remove_build, _switch, builds_dir, check_space, current_build, new_build_id, prune_builds
from ltm.graph.engine import Connection, open_database


def amend_current(graph_root: Path, change: Callable[[Connection], None], retention: int = 3) -> str | None:
    """Apply `change` to a copy of the current build and switch to it; None if no build exists.

    The caller holds the home's graph lock. A disk without room for the copy is refused first
    (`check_space`): Kuzu 0.11.3 aborts the process when the disk fills under a write.
    """
    current = current_build(graph_root)
    if current is None:
        return None
    check_space(graph_root, "an amended copy of the graph")
    build_id = new_build_id()
    path = builds_dir(graph_root) / f"{build_id}{current.suffix}"  # the engine of the build it copies
    try:
        shutil.copyfile(current, path)
        wal = current.with_name(current.name + ".wal")
        if wal.exists():
            shutil.copyfile(wal, path.with_name(path.name + ".wal"))
        with open_database(path, read_only=False, buffer_pool_mb=256) as conn:
            change(conn)
    except BaseException:
        _remove_build(path)
        raise
    _switch(graph_root, path.name)
    prune_builds(graph_root, retention)
    return build_id
