"""Blue/green graph builds: COPY the lake into a new graph database, then switch CURRENT.

A build is full (every partition into an empty database) or an amend (a copy of the current build
in which the partitions whose files changed are replaced, `amend.py`): either way it is a new file
under a new build id, so readers of the build named in `graph/CURRENT` open it read-only and never
wait for a writer, a crash mid-build leaves the old build serving, and edges never duplicate.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ltm import progress
from ltm.errors import GraphError, HomeError
from ltm.graph import inputs as build_inputs
from ltm.graph.amend import AmendPlan, AmendRefused, amend_plan, apply_amend, copy_build
from ltm.graph.copy import copy_nodes, copy_rel, frame_owners, node_frames, note_rel, plan_rel, verify_counts
from ltm.graph.current import builds_dir, current_build, list_builds, switch  # noqa: F401  (re-exported)
from ltm.graph.engine import ENGINES, default_engine, engine, open_database, query, schema_ddl
from ltm.graph.name_words import NAMED_LABELS
from ltm.graph.partitions import LakeParts, Ledger
from ltm.graph.view import GraphView
from ltm.lake import Lake
from ltm.schema import NODE_TABLES, REL_TABLES

log = logging.getLogger(__name__)


@dataclass
class BuildStats:
    build_id: str
    engine: str = "kuzu"
    nodes: dict[str, int] = field(default_factory=dict)
    rels: dict[str, int] = field(default_factory=dict)
    dangling_edges: dict[str, int] = field(default_factory=dict)
    duplicate_edges: int = 0
    seconds: float = 0.0
    reused: bool = False  # the lake had not changed since the current build: nothing was built
    mode: str = "full"  # "full", "amend" (a copy of the current build with the changed partitions
    # replaced, `amend.py`) or "reused"
    changed_partitions: list[str] = field(default_factory=list)  # what an amend replaced
    amend_refused: str | None = None  # why a build that had a current one to amend was full
    amended_rows: dict[str, int] = field(default_factory=dict)  # an amend's nodes and edges copied, deleted, set


def _heal_pointer(graph_root: Path) -> None:
    """Remove a CURRENT that names no build of this home, and links among the builds (builds are
    never links), so the build about to run replaces them."""
    for link in (p for p in builds_dir(graph_root).iterdir() if p.is_symlink()):
        log.warning("removing %s: graph builds are never links", link)
        link.unlink()
    try:
        current_build(graph_root)
    except GraphError as e:
        log.warning("%s", e)
        (graph_root / "CURRENT").unlink()


def new_build_id() -> str:
    """A build id whose name order is its time order, to the microsecond (pruning sorts by name)."""
    now_us = time.time_ns() // 1000
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_us // 1_000_000))
    return f"{stamp}_{now_us % 1_000_000:06d}-{uuid.uuid4().hex[:8]}"


def _remove_build(path: Path) -> None:
    for p in path.parent.glob(path.name + "*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)


def prune_builds(graph_root: Path, retention: int) -> list[str]:
    """Remove killed builds and all but the newest `retention` builds (never the current one).

    Call it under the graph lock: a build that still has its `.staging` folder then is one whose
    process died mid-build (it was never switched to), so it goes first and never counts as kept.
    """
    removed = []
    for stale in sorted(builds_dir(graph_root).glob("*.staging")):
        for e in ENGINES.values():
            _remove_build(stale.with_suffix(e.suffix))
        shutil.rmtree(stale, ignore_errors=True)
        removed.append(stale.stem)
    current = current_build(graph_root)
    builds = list_builds(graph_root)
    for b in builds[: max(0, len(builds) - retention)]:
        if current is None or b != current:
            _remove_build(b)
            removed.append(b.stem)
    return removed


def _disk_usage(build: Path) -> int:
    """Bytes a build takes on disk (its database file and what Kuzu keeps beside it)."""
    return sum(p.stat().st_blocks * 512 for p in build.parent.glob(build.name + "*") if p.is_file())


def check_space(graph_root: Path, what: str = "a graph build") -> None:
    """Refuse a build that cannot fit: a new build takes about as much as the current one.

    When the disk fills in the middle of a COPY, Kuzu 0.11.3 raises, then aborts the whole process
    when the connection closes (no message), so the check comes first, while the current build
    still serves.
    """
    current = current_build(graph_root)
    if current is None:
        return
    if os.statvfs(graph_root).f_flag & os.ST_RDONLY:  # a read-only file system also reports no free space
        raise HomeError(
            f"cannot write to the home {graph_root.parent}: read-only file system: make the home writable "
            "(or use another --home) and run again"
        )
    need, free = _disk_usage(current), shutil.disk_usage(graph_root).free
    if free < need:
        home = graph_root.parent
        raise HomeError(
            f"no space left on the disk of the home {home} for {what}: about {need // 2**20 + 1} MB "
            f"needed, {free // 2**20} MB free: free some space on its disk (or use another --home) and run again"
        )


@dataclass
class _Made:
    """What `_full` or an amend put into a new build: its counts and the ledger to note beside it."""

    stats: BuildStats
    ledger: Ledger


def _full(conn, lake: Lake, staging: Path, stats: BuildStats, ledger: Ledger, bar: progress.Tracker) -> None:
    """Every partition of the lake into an empty build."""
    for stmt in schema_ddl():
        query(conn, stmt)
    src = LakeParts(lake)
    frames = node_frames(src, ledger)
    stats.nodes = {label: df.height for label, df in frames.items()}
    copy_nodes(conn, frames, staging, bar.advance)
    owners = frame_owners(frames)
    for name in REL_TABLES:
        bar.advance()
        plan = plan_rel(src, name, owners)
        stats.rels[name] = copy_rel(conn, plan, staging)
        note_rel(ledger, plan, whole=plan.cross)
    stats.dangling_edges, stats.duplicate_edges = ledger.dangling(), ledger.duplicates()
    verify_counts(conn, stats.nodes, stats.rels)


def _finish(conn, path: Path) -> None:
    """What a build derives from its rows: the reader index saved beside it. No full-text index:
    retrieval ranks messages, titles and memory text by LanceDB's (`ltm.retrieval.strategies`)."""
    # what every reader would compute per label on first use, saved once beside the build
    GraphView(conn, path).save_reader_index(NODE_TABLES, NAMED_LABELS)


def build_graph(graph_root: Path, lake: Lake, retention: int = 3, engine_name: str | None = None,
                reuse: bool = True, amend: bool = True) -> BuildStats:
    """Build a complete graph from the lake with `engine_name` (default: `default_engine()`), verify
    its counts, switch CURRENT to it. Switching engines is such a build: readers keep the old build
    (of the old engine) until CURRENT names the new one.

    When the lake holds what the current build was made from (`ltm.graph.inputs`, engine included),
    the current build is kept and its counts returned with `reused` set; `reuse=False` builds anew.
    When only some partitions changed, the new build is an amended copy of the current one
    (`ltm.graph.amend`: `mode` "amend"), unless `amend=False` or the amend cannot be proved equal to
    a full build (then `amend_refused` says why and the build is full).
    """
    started = time.perf_counter()
    builds = builds_dir(graph_root)
    builds.mkdir(parents=True, exist_ok=True)
    _heal_pointer(graph_root)
    eng = engine(engine_name or default_engine())
    parts = build_inputs.part_digests(lake)
    digest = build_inputs.digest(lake, eng.name, parts)
    current = current_build(graph_root)
    kept = build_inputs.reusable(current, digest)
    if reuse and current is not None and kept is not None:
        return BuildStats(current.name.removesuffix(eng.suffix), eng.name, kept["nodes"], kept["rels"],
                          kept["dangling_edges"], seconds=time.perf_counter() - started, reused=True, mode="reused")
    check_space(graph_root)
    copied = build_inputs.overlay_files(lake)  # before the copy: a file added meanwhile is read by the overlay
    code = build_inputs.code_digest(eng.name)
    plan = amend_plan(current, lake, eng.name, code, parts) if amend and current is not None else None
    build_id = new_build_id()
    path, staging = builds / f"{build_id}{eng.suffix}", builds / f"{build_id}.staging"
    staging.mkdir()
    refused = plan if isinstance(plan, str) else None
    made: _Made | None = None
    try:
        with progress.tracker("graph", len(NODE_TABLES) + len(REL_TABLES) + 1, "tables") as bar:
            if isinstance(plan, AmendPlan):
                try:
                    with open_database(copy_build(plan, path), read_only=False) as conn:
                        stats = BuildStats(build_id, engine=eng.name, mode="amend", changed_partitions=plan.changed)
                        apply_amend(conn, plan, lake, staging, stats, bar)
                        _finish(conn, path)
                    made = _Made(stats, plan.ledger)
                except AmendRefused as e:  # the lake holds what an amend cannot prove equal: build in full
                    refused = str(e)
                    _remove_build(path)
            if made is None:
                stats = BuildStats(build_id, engine=eng.name, mode="full", amend_refused=refused)
                ledger = Ledger()
                with open_database(path, read_only=False) as conn:
                    _full(conn, lake, staging, stats, ledger, bar)
                    _finish(conn, path)
                made = _Made(stats, ledger)
            bar.advance()
    except BaseException:
        _remove_build(path)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)
    stats, ledger = made.stats, made.ledger
    ledger.code, ledger.parts = code, parts
    build_inputs.record(path, digest, {"nodes": stats.nodes, "rels": stats.rels, "dangling_edges": stats.dangling_edges,
                                       "overlay_files": copied, "ledger": ledger.to_json()})
    switch(graph_root, path.name)
    prune_builds(graph_root, retention)
    stats.seconds = time.perf_counter() - started
    return stats
