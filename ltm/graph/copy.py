"""What a graph build copies from the lake, table by table: node rows (with past nodes, side tables
and PageRank), relationship rows without dangling or duplicate edges, and the COPY statements.

A full build (`build.py`) runs these over every partition; an amend (`amend.py`) over the changed
ones. Both note in the `Ledger` what each partition gave, so the next amend can prove its result
equal to a full build of the same lake.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from ltm.errors import GraphError
from ltm.graph.centrality import scores, with_pagerank
from ltm.graph.engine import Connection, query
from ltm.graph.partitions import PART, LakeParts, Ledger, count_by_part
from ltm.schema import NODE_TABLES, REL_TABLES, SIDE_TABLES

# label, ids -> (id, owner): the ids among `ids` that are nodes of the graph being made, each with
# the partition that holds it
Owners = Callable[[str, pl.Series], pl.DataFrame]


def literal(path: Path) -> str:
    """A file path as a Cypher string literal (COPY takes no parameter for its source)."""
    return "'" + str(path).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _with_side_tables(df: pl.DataFrame, src: LakeParts, label: str, ledger: Ledger) -> pl.DataFrame:
    """Join the label's side tables (e.g. FunctionDefects) on id; a node without a row gets 0 (text: null)."""
    for side in SIDE_TABLES.values():
        if side.label != label:
            continue
        props = side.props.names
        extra = src.frame(side.name, ["id", *props]).unique("id", keep="first", maintain_order=True)
        if extra.join(df.select("id", PART), on="id").filter(pl.col(PART) != pl.col(PART + "_right")).height:
            ledger.owned = False  # a side row of one partition describes a node of another
        numeric = [p for p in props if extra.schema[p].is_numeric()]  # text properties stay null
        df = (df.join(extra.drop(PART), on="id", how="left", maintain_order="left")
              .with_columns([pl.col(p).fill_null(0) for p in numeric]))
    return df


def node_frames(src: LakeParts, ledger: Ledger) -> dict[str, pl.DataFrame]:
    """Each label's rows of `src` as the build copies them (graph columns, then `_part`); notes their
    counts per partition. GraphError on a duplicate id."""
    ranks = scores(src)
    out: dict[str, pl.DataFrame] = {}
    for label, table in NODE_TABLES.items():
        cols = table.graph.names
        df = src.frame(label, cols)
        if table.past_table:
            # Nodes that exist only in the history; the tip's own row wins if both name one id
            # (e.g. when the history was mined from another branch than HEAD).
            past = src.frame(table.past_table, cols)
            df = pl.concat([df, past.filter(~pl.col("id").is_in(df["id"].implode()))], how="vertical")
        df = _with_side_tables(df, src, label, ledger)
        if label in ranks and "pagerank" in df.columns:
            df = with_pagerank(df, ranks[label])
        dupes = df.filter(pl.col("id").is_duplicated())["id"].unique().head(5).to_list()
        if dupes:
            raise GraphError(f"the lake has duplicate {label} ids, e.g. {dupes}: re-ingest the repository")
        if df.filter(pl.col("repo") != pl.col(PART)).height:
            ledger.owned = False
        ledger.part_nodes.setdefault(label, {}).update(count_by_part(df))
        out[label] = df
    return out


def copy_nodes(conn: Connection, frames: dict[str, pl.DataFrame], staging: Path, advance: Callable[[], None]) -> None:
    """COPY each label's frame into the build (into tables that may hold other partitions' nodes)."""
    for label, df in frames.items():
        if df.height:
            f = staging / f"{label}.parquet"
            df = df.drop(PART)  # the rest in the order of the label's columns (COPY matches by position)
            pq.write_table(df.to_arrow(), f)
            query(conn, f"COPY {label} FROM (LOAD FROM {literal(f)} RETURN {', '.join(df.columns)})")
        advance()


def frame_owners(frames: dict[str, pl.DataFrame]) -> Owners:
    """Owners of the nodes in `frames` (the whole graph, for a full build)."""
    index = {label: df.select("id", pl.col(PART).alias("owner")) for label, df in frames.items()}

    def owners(label: str, ids: pl.Series) -> pl.DataFrame:
        return index[label]

    return owners


@dataclass
class RelPlan:
    """One relationship table's rows of some partitions, ready to COPY, and what was dropped."""

    name: str
    copies: list[tuple[str, str, pl.DataFrame]] = field(default_factory=list)  # (from, to, unique rows)
    cross: bool = False  # some row joins nodes of two partitions
    rows: dict[str, int] = field(default_factory=dict)  # partition -> edges copied
    dups: dict[str, int] = field(default_factory=dict)  # partition -> duplicates dropped
    dangling: dict[str, dict[str, int]] = field(default_factory=dict)  # partition -> pair -> dropped
    dangling_ids: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # partition -> label -> ids
    total_dups: int = 0

    @property
    def total(self) -> int:
        return sum(df.height for *_, df in self.copies)

    def dangling_total(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for pairs in self.dangling.values():
            for pair, n in pairs.items():
                out[pair] = out.get(pair, 0) + n
        return out


def plan_rel(src: LakeParts, name: str, owners: Owners) -> RelPlan:
    """The rows of relationship table `name` in `src` whose both ends are nodes, duplicates dropped."""
    rel = REL_TABLES[name]
    props = rel.props.names
    plan = RelPlan(name)
    df = src.frame(name)
    if df.height == 0:
        return plan
    for a, b in rel.pairs:
        part = df.filter((pl.col("src_label") == a) & (pl.col("dst_label") == b))
        if part.height == 0:
            continue
        own_a = owners(a, part["src"]).rename({"id": "src", "owner": "src_owner"})
        own_b = owners(b, part["dst"]).rename({"id": "dst", "owner": "dst_owner"})
        part = (part.join(own_a, on="src", how="left", maintain_order="left")
                .join(own_b, on="dst", how="left", maintain_order="left"))
        plan.cross = plan.cross or part.filter(
            (pl.col("src_owner").is_not_null() & (pl.col("src_owner") != pl.col(PART)))
            | (pl.col("dst_owner").is_not_null() & (pl.col("dst_owner") != pl.col(PART)))).height > 0
        missing = part.filter(pl.col("src_owner").is_null() | pl.col("dst_owner").is_null())
        key = f"{name}({a}->{b})"
        for p, n in count_by_part(missing).items():
            plan.dangling.setdefault(p, {})[key] = n
        for (p,), rows in missing.group_by([PART]):
            ids = plan.dangling_ids.setdefault(p, {})
            ids.setdefault(a, set()).update(rows.filter(pl.col("src_owner").is_null())["src"].to_list())
            ids.setdefault(b, set()).update(rows.filter(pl.col("dst_owner").is_null())["dst"].to_list())
        ok = part.filter(pl.col("src_owner").is_not_null() & pl.col("dst_owner").is_not_null())
        per_part = ok.select([PART, "src", "dst", *props]).unique(maintain_order=True)
        unique = per_part.unique(subset=["src", "dst", *props], maintain_order=True)
        plan.total_dups += ok.height - unique.height
        before, after = count_by_part(ok), count_by_part(per_part)
        for p, n in before.items():
            plan.dups[p] = plan.dups.get(p, 0) + n - after.get(p, 0)
            plan.rows[p] = plan.rows.get(p, 0) + after.get(p, 0)
        if unique.height:
            plan.copies.append((a, b, unique.select(["src", "dst", *props])))
    return plan


def copy_rel(conn: Connection, plan: RelPlan, staging: Path) -> int:
    """COPY a planned table's rows into the build; returns the edges copied."""
    rel = REL_TABLES[plan.name]
    for a, b, rows in plan.copies:
        f = staging / f"{plan.name}-{a}-{b}.parquet"
        pq.write_table(rows.to_arrow(), f)
        pair = f"(from='{a}', to='{b}')" if len(rel.pairs) > 1 else ""
        query(conn, f"COPY {plan.name} FROM {literal(f)} {pair}".strip())
    return plan.total


def note_rel(ledger: Ledger, plan: RelPlan, whole: bool) -> None:
    """Note in `ledger` what `plan` copied: per partition, or for the whole table."""
    name = plan.name
    if whole:
        ledger.whole_dups[name] = plan.total_dups
        ledger.whole_dangling[name] = plan.dangling_total()
        for by in (ledger.part_rels, ledger.part_dups, ledger.part_dangling):
            by.pop(name, None)
        if name not in ledger.whole:
            ledger.whole.append(name)
        return
    ledger.part_rels.setdefault(name, {}).update(plan.rows)
    ledger.part_dups.setdefault(name, {}).update(plan.dups)
    ledger.part_dangling.setdefault(name, {}).update(plan.dangling)
    for p, by_label in plan.dangling_ids.items():
        mine = ledger.dangling_ids.setdefault(p, {})
        for label, ids in by_label.items():
            if ids:
                mine[label] = sorted(set(mine.get(label, [])) | ids)


def verify_counts(conn: Connection, nodes: dict[str, int], rels: dict[str, int]) -> None:
    """GraphError unless the build holds exactly these node and edge counts."""
    for label, n in nodes.items():
        got = query(conn, f"MATCH (n:{label}) RETURN count(n)")[0][0]
        if got != n:
            raise GraphError(f"graph build has {got} {label} nodes, the lake {n}")
    for name, n in rels.items():
        got = query(conn, f"MATCH ()-[r:{name}]->() RETURN count(r)")[0][0]
        if got != n:
            raise GraphError(f"graph build has {got} {name} edges, expected {n}")
