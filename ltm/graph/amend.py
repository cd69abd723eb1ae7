"""An amend: the next build made from a copy of the current one, in which only the partitions whose
lake files changed are replaced, so one repository's new commit costs that repository's part of
the graph, not the whole home's.

The copy gets a new build id: readers of CURRENT never see it change, and a crash leaves the old
build serving (the half-made copy is pruned like any killed build). In the copy, the changed
partitions' nodes and edges are brought to their lake rows (a node that left or changed is
deleted with its edges, `DETACH DELETE`; new and changed rows are COPYed into the non-empty
tables), the relationship tables whose rows join two partitions (memory links) are compared whole,
and the counts are checked against the lake as a full build checks them; the reader index is saved
anew (a build has no full-text index to keep up to date).

Rows are compared with what the copy holds, so unchanged nodes and edges are never touched (a
deleted node leaves a hole): a new
commit costs its own rows, the few rows it changes, and PageRank set anew on its repository.

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
from ltm.graph.copy import Owners, RelPlan, copy_nodes, copy_rel, node_frames, note_rel, plan_rel, verify_counts
from ltm.graph.engine import Connection, query, query_arrow
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
    dead, live = sum(ledger.dead.values()), sum(ledger.nodes().values())
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
    return AmendPlan(current, changed, new, frames)


def copy_build(plan: AmendPlan, path: Path) -> Path:
    """Copy the current build's database file to `path` (a new build id) and return `path`."""
    shutil.copyfile(plan.current, path)
    return path


def _owners(conn: Connection, frames: dict[str, pl.DataFrame], changed: list[str],
            known: dict[str, pl.DataFrame] | None = None) -> Owners:
    """Owners of ids as the amended build will hold them: the changed partitions' new nodes, else the
    other partitions' nodes (`known`: some of those, already read; the rest are looked up)."""
    fresh = {label: df.select("id", pl.col(PART).alias("owner")) for label, df in frames.items()}

    def owners(label: str, ids: pl.Series) -> pl.DataFrame:
        mine = pl.concat([fresh[label], *([known[label]] if known and label in known else [])], how="vertical")
        wanted = ids.unique()
        rest = wanted.filter(~wanted.is_in(mine["id"].implode()))
        if rest.len() == 0:
            return mine
        # (the changed partitions' nodes in the copy are the old ones: only `fresh` speaks for them)
        kept = query_arrow(conn, f"MATCH (n:{label}) WHERE n.id IN $ids AND NOT n.repo IN $parts "
                                 "RETURN n.id AS id, n.repo AS owner", {"ids": rest.to_list(), "parts": changed})
        kept_df = pl.from_arrow(kept).cast({"id": pl.String, "owner": pl.String}) if kept.num_rows else mine.clear()
        return pl.concat([mine, kept_df], how="vertical")

    return owners


def _known(held: dict[tuple[str, str], Any], changed: list[str]) -> dict[str, pl.DataFrame]:
    """The ends of edges the copy holds that lie outside the changed partitions, with their owners."""
    parts: dict[str, list[pl.DataFrame]] = {}
    for (a, b), table in held.items():
        if not table.num_rows:
            continue
        df = pl.from_arrow(table)
        for label, end in ((a, "src"), (b, "dst")):
            own = df.select(pl.col(end).alias("id"), pl.col(f"{end}_repo").alias("owner"))
            parts.setdefault(label, []).append(own.filter(~pl.col("owner").is_in(changed)))
    return {label: pl.concat(frames).unique("id").cast(pl.String) for label, frames in parts.items()}


def _like(held: Any, new: pl.DataFrame) -> pl.DataFrame:
    """Rows read back from the build (Arrow) with the types of `new`, so equal rows hash equal."""
    df = pl.from_arrow(held) if held.num_rows else new.clear()
    out = []
    for name, dtype in new.schema.items():
        col = df[name]
        if isinstance(dtype, pl.Datetime) and isinstance(col.dtype, pl.Datetime) and col.dtype.time_zone != dtype.time_zone:
            col = col.dt.replace_time_zone(dtype.time_zone) if col.dtype.time_zone is None else col.dt.convert_time_zone(dtype.time_zone)
        out.append(col.cast(dtype))
    return pl.DataFrame(out)


def _held_nodes(conn: Connection, label: str, new: pl.DataFrame, changed: list[str]) -> pl.DataFrame:
    cols = [c for c in new.columns if c != PART]
    held = query_arrow(conn, f"MATCH (n:{label}) WHERE n.repo IN $parts RETURN " + ", ".join(f"n.{c} AS {c}" for c in cols),
                       {"parts": changed})
    return _like(held, new.select(cols))


def _held_edges(conn: Connection, name: str, a: str, b: str, changed: list[str] | None) -> Any:
    """The edges of a (from, to) pair the copy holds (of the changed partitions, or all), with their ends' repo."""
    props = REL_TABLES[name].props.names
    where, params = ("WHERE a.repo IN $parts ", {"parts": changed}) if changed is not None else ("", None)
    return query_arrow(conn, f"MATCH (a:{a})-[r:{name}]->(b:{b}) {where}RETURN a.id AS src, b.id AS dst, "
                       "a.repo AS src_repo, b.repo AS dst_repo" + "".join(f", r.{p} AS {p}" for p in props), params)


def _delete_nodes(conn: Connection, label: str, ids: list[str]) -> None:
    if ids:
        query(conn, f"UNWIND $ids AS i MATCH (n:{label} {{id: i}}) DETACH DELETE n", {"ids": ids})


def _nodes(conn: Connection, plan: AmendPlan, staging: Path, bar: progress.Tracker,
           counts: dict[str, int]) -> dict[str, set[str]]:
    """Bring the changed partitions' nodes to their new rows: unchanged rows stay (their edges too),
    rows whose only change is `pagerank` get it set, other changed rows are deleted and copied
    again with the new ones, rows that left are deleted. Returns, per label, the ids whose edges
    went with them (deleted or copied again)."""
    gone: dict[str, set[str]] = {}
    to_copy: dict[str, pl.DataFrame] = {}
    for label, new in plan.frames.items():
        cols = [c for c in new.columns if c != PART]
        old = _held_nodes(conn, label, new, plan.changed)
        fresh = new.select(cols)
        same = fresh.hash_rows().is_in(old.hash_rows().implode())
        if "pagerank" in cols:  # PageRank is scaled per repository: one new function moves them all
            rest = [c for c in cols if c != "pagerank"]
            ranked = fresh.select(rest).hash_rows().is_in(old.select(rest).hash_rows().implode()) & ~same
            ranked &= fresh["pagerank"].is_not_null()
            rows = fresh.filter(ranked).select("id", "pagerank")
            if rows.height:
                query(conn, f"UNWIND $rows AS r MATCH (n:{label} {{id: r.id}}) SET n.pagerank = r.pagerank",
                      {"rows": rows.to_dicts()})
                counts["nodes_pagerank_set"] += rows.height
            same |= ranked
        redo = fresh.filter(~same)
        left = old.filter(~old["id"].is_in(fresh["id"].implode()))["id"].to_list()
        again = redo.filter(redo["id"].is_in(old["id"].implode()))["id"].to_list()
        _delete_nodes(conn, label, left + again)
        plan.ledger.dead[label] = plan.ledger.dead.get(label, 0) + len(left) + len(again)
        gone[label] = set(left) | set(again)
        to_copy[label] = new.filter(~same)
        counts["nodes_deleted"] += len(left) + len(again)
        counts["nodes_copied"] += to_copy[label].height
    copy_nodes(conn, to_copy, staging, bar.advance)
    return gone


def _rel_diff(conn: Connection, rel: RelPlan, held: dict[tuple[str, str], Any], gone: dict[str, set[str]],
              staging: Path, counts: dict[str, int]) -> None:
    """Bring a partitioned table's edges of the changed partitions to `rel`'s rows: edges that stay
    are kept, edges that went are deleted, the others copied."""
    name = rel.name
    copies = []
    for a, b, new in rel.copies:
        old = _like(held.pop((a, b)), new)
        old_hash, new_hash = old.hash_rows(), new.hash_rows()
        lost_a, lost_b = pl.Series(sorted(gone.get(a, ())), dtype=pl.String), pl.Series(sorted(gone.get(b, ())), dtype=pl.String)
        alive = ~old["src"].is_in(lost_a.implode()) & ~old["dst"].is_in(lost_b.implode())
        dropped = old.filter(alive & ~old_hash.is_in(new_hash.implode())).select("src", "dst").unique()
        if dropped.height:
            query(conn, f"UNWIND $pairs AS p MATCH (a:{a} {{id: p.src}})-[r:{name}]->(b:{b} {{id: p.dst}}) DELETE r",
                  {"pairs": dropped.to_dicts()})
            counts["edge_pairs_deleted"] += dropped.height
        pair_key = pl.concat_str(["src", "dst"], separator="\0")
        redo = (~new_hash.is_in(old_hash.implode()) | new["src"].is_in(lost_a.implode())
                | new["dst"].is_in(lost_b.implode())
                | new.select(pair_key)["src"].is_in(dropped.select(pair_key)["src"].implode()))
        if redo.any():
            copies.append((a, b, new.filter(redo)))
    for (a, b), old in held.items():  # pairs with no rows left: every edge between survivors goes
        old = pl.from_arrow(old) if old.num_rows else None
        if old is None:
            continue
        lost_a, lost_b = gone.get(a, set()), gone.get(b, set())
        pairs = old.filter(~old["src"].is_in(list(lost_a)) & ~old["dst"].is_in(list(lost_b))).select("src", "dst").unique()
        if pairs.height:
            query(conn, f"UNWIND $pairs AS p MATCH (a:{a} {{id: p.src}})-[r:{name}]->(b:{b} {{id: p.dst}}) DELETE r",
                  {"pairs": pairs.to_dicts()})
            counts["edge_pairs_deleted"] += pairs.height
    counts["edges_copied"] += copy_rel(conn, RelPlan(name, copies), staging)


def apply_amend(conn: Connection, plan: AmendPlan, lake: Lake, staging: Path, stats: Any,
                bar: progress.Tracker) -> None:
    """Bring the open copy to the lake's rows of the changed partitions; fills `stats` (a BuildStats)
    and the plan's ledger. AmendRefused when the engine refuses a row or the counts disagree."""
    ledger, changed = plan.ledger, plan.changed
    whole = set(ledger.whole)
    try:
        # what the copy holds of the changed partitions' edges, read before anything is written
        owners = _owners(conn, plan.frames, changed)
        rels: dict[str, RelPlan] = {}
        held: dict[str, dict[tuple[str, str], Any]] = {}
        for name in REL_TABLES:
            if name in whole:
                continue
            rel = plan_rel(LakeParts(lake, changed), name, owners)
            if rel.cross:  # new rows join two partitions: the table is planned whole from now on
                whole.add(name)
                continue
            rels[name] = rel
            held[name] = {(a, b): _held_edges(conn, name, a, b, changed) for a, b in REL_TABLES[name].pairs}
        # tables whose rows join partitions (memory links): every row, against every edge the copy holds
        for name in sorted(whole):
            held[name] = {(a, b): _held_edges(conn, name, a, b, None) for a, b in REL_TABLES[name].pairs}
            rels[name] = plan_rel(LakeParts(lake), name, _owners(conn, plan.frames, changed, _known(held[name], changed)))
        counts = stats.amended_rows = dict.fromkeys(
            ("nodes_copied", "nodes_deleted", "nodes_pagerank_set", "edges_copied", "edge_pairs_deleted"), 0)
        gone = _nodes(conn, plan, staging, bar, counts)
        stats.rels = {}
        for name, rel in rels.items():
            bar.advance()
            _rel_diff(conn, rel, held[name], gone, staging, counts)
            note_rel(ledger, rel, whole=name in whole)
            stats.rels[name] = rel.total if name in whole else sum(ledger.part_rels.get(name, {}).values())
    except RuntimeError as e:  # the engine refused a row: the full build names the cause
        raise AmendRefused(f"the amend failed: {e}") from e
    stats.rels = {name: stats.rels[name] for name in REL_TABLES}
    stats.nodes = ledger.nodes()
    stats.dangling_edges, stats.duplicate_edges = ledger.dangling(), ledger.duplicates()
    try:
        verify_counts(conn, stats.nodes, stats.rels)
    except GraphError as e:  # never switch to a build that disagrees with the lake
        raise AmendRefused(f"the amended build failed its count check: {e}") from e
