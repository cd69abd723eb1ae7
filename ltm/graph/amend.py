"""An amend: the next build made from a copy of the current one, in which only the partitions whose
lake files changed are replaced, so one repository's new commit costs that repository's part of
the graph, not the whole home's.

The copy gets a new build id: readers of CURRENT never see it change, and a crash leaves the old
build serving (the half-made copy is pruned like any killed build). In the copy, every node of a
changed partition goes with its edges (`n.repo IN $parts DETACH DELETE n`), the partitions' rows
are copied in again from the lake (COPY into non-empty tables), the relationship tables whose rows
join two partitions (memory links) are copied whole, and the counts are checked against the lake
as a full build checks them. The full-text indexes follow the rows; the reader index is saved anew.

`amend_plan` refuses (returns why, and the build is made in full) whatever it cannot prove equal to
a full build of the same lake: no ledger beside the current build (made by older code), other
graph code, schema or engine, node rows whose `repo` is not their partition, a new node that a
dangling edge of an unchanged partition names, or more deleted node slots than live ones (Kuzu
does not reuse a deleted node's offset: a full build compacts them).
"""

from __future__ import annotations

import copy
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ltm import progress
from ltm.errors import GraphError
from ltm.graph import inputs as build_inputs
from ltm.graph.copy import Owners, copy_nodes, copy_rel, node_frames, note_rel, plan_rel, verify_counts
from ltm.graph.engine import Connection, query, query_arrow
from ltm.graph.fts import fts_labels
from ltm.graph.partitions import PART, LakeParts, Ledger
from ltm.lake import Lake
from ltm.schema import NODE_TABLES, REL_TABLES


class AmendRefused(Exception):
    """An amend could not be proved equal to a full build of the lake: the build is made in full."""


@dataclass
class AmendPlan:
    """What an amend of `current` replaces, read before anything is written."""

    current: Path
    changed: list[str]  # partitions whose files changed (added and removed ones too)
    ledger: Ledger  # the current build's, with the changed partitions' new rows noted
    frames: dict[str, pl.DataFrame]  # the changed partitions' node rows, as a build copies them


def amend_plan(current: Path, lake: Lake, engine: str, code: str, parts: dict[str, str]) -> AmendPlan | str:
    """The amend of `current` to the lake's `parts` (`inputs.part_digests`), or why there is none."""
    note = build_inputs.noted(current)
    ledger = Ledger.from_json(note.get("ledger")) if note else None
    if ledger is None:
        return "the current build has no ledger of its partitions (made by older code, or changed since)"
    if ledger.code != code:
        return f"the graph code, schema or engine ({engine}) changed since the current build"
    if not ledger.owned:
        return "some node rows of the current build's lake were not in their repository's partition"
    if any(current.parent.glob(current.name + ".wal")):
        return "the current build has a write-ahead log left beside it"
    changed = sorted(p for p in set(parts) | set(ledger.parts) if parts.get(p) != ledger.parts.get(p))
    if not changed:
        return "no partition changed (a new build was asked for)"
    gone = {label: sum(by.get(p, 0) for p in changed) for label, by in ledger.part_nodes.items()}
    dead, live = sum(ledger.dead.values()) + sum(gone.values()), sum(ledger.nodes().values())
    if dead > live:
        return f"an amend would leave more deleted node slots than live nodes ({dead} > {live}): a full build compacts them"
    new = copy.deepcopy(ledger)
    new.drop_parts(set(changed))
    try:
        frames = node_frames(LakeParts(lake, changed), new)
    except GraphError as e:  # the full build says it in full
        return str(e)
    if not new.owned:
        return f"node rows of {', '.join(changed)} name another repository than their partition"
    for by_label in new.dangling_ids.values():  # only unchanged partitions' are left
        for label, ids in by_label.items():
            if frames[label].height and frames[label]["id"].is_in(pl.Series(ids, dtype=pl.String).implode()).any():
                return f"a new {label} of {', '.join(changed)} is named by a dangling edge of another partition"
    for label, n in gone.items():
        new.dead[label] = ledger.dead.get(label, 0) + n
    return AmendPlan(current, changed, new, frames)


def copy_build(plan: AmendPlan, path: Path) -> Path:
    """Copy the current build's database file to `path` (a new build id) and return `path`."""
    shutil.copyfile(plan.current, path)
    return path


def _owners(conn: Connection, frames: dict[str, pl.DataFrame]) -> Owners:
    """Owners of ids among the changed partitions' new nodes, else among the nodes the copy kept."""
    fresh = {label: df.select("id", pl.col(PART).alias("owner")) for label, df in frames.items()}

    def owners(label: str, ids: pl.Series) -> pl.DataFrame:
        mine = fresh[label]
        wanted = ids.unique()
        rest = wanted.filter(~wanted.is_in(mine["id"].implode()))
        if rest.len() == 0:
            return mine
        kept = query_arrow(conn, f"MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, n.repo AS owner",
                           {"ids": rest.to_list()})
        kept_df = pl.from_arrow(kept).cast({"id": pl.String, "owner": pl.String}) if kept.num_rows else mine.clear()
        return pl.concat([mine, kept_df], how="vertical")

    return owners


def apply_amend(conn: Connection, plan: AmendPlan, lake: Lake, staging: Path, stats: Any,
                bar: progress.Tracker) -> None:
    """Replace the changed partitions in the open copy; fills `stats` (a BuildStats) and the plan's
    ledger. AmendRefused when the engine refuses a row (e.g. an id another partition holds)."""
    if fts_labels(conn):
        query(conn, "LOAD EXTENSION fts")  # the indexes are updated with the rows they cover
    ledger, changed = plan.ledger, plan.changed
    whole = set(ledger.whole)
    try:
        for name in sorted(whole):
            query(conn, f"MATCH ()-[r:{name}]->() DELETE r")
        for label in NODE_TABLES:
            query(conn, f"MATCH (n:{label}) WHERE n.repo IN $parts DETACH DELETE n", {"parts": changed})
        copy_nodes(conn, plan.frames, staging, bar.advance)
        owners = _owners(conn, plan.frames)
        stats.rels = {}
        for name in REL_TABLES:
            bar.advance()
            if name not in whole:
                rel = plan_rel(LakeParts(lake, changed), name, owners)
                if not rel.cross:
                    copy_rel(conn, rel, staging)
                    note_rel(ledger, rel, whole=False)
                    stats.rels[name] = sum(ledger.part_rels.get(name, {}).values())
                    continue
                query(conn, f"MATCH ()-[r:{name}]->() DELETE r")  # new rows join two partitions: copy it whole
            rel = plan_rel(LakeParts(lake), name, owners)
            stats.rels[name] = copy_rel(conn, rel, staging)
            note_rel(ledger, rel, whole=True)
    except RuntimeError as e:  # the engine refused a row: the full build names the cause
        raise AmendRefused(f"the amend failed: {e}") from e
    stats.nodes = ledger.nodes()
    stats.dangling_edges, stats.duplicate_edges = ledger.dangling(), ledger.duplicates()
    try:
        verify_counts(conn, stats.nodes, stats.rels)
    except GraphError as e:  # never switch to a build that disagrees with the lake
        raise AmendRefused(f"the amended build failed its count check: {e}") from e
