"""The lake's partitions as a graph build sees them: which rows each one gives the build, and the
ledger that lets the next build change only the partitions whose files changed (`amend.py`).

A build reads every table through `LakeParts`, which tags each row with its partition (`_part`).
While it copies, it notes in a `Ledger` what an amend must know to give the same graph as a full
build: each partition's node and edge counts (and the duplicate and dangling edges it dropped),
whether every node row's `repo` names its own partition (so `n.repo IN $parts` finds exactly a
partition's nodes), which relationship tables have rows joining two partitions (`whole`: an amend
copies them whole), and the ids that dangling edges point to (a later node with one of those ids
would turn a dangling edge into a real one somewhere the amend does not look).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl
import pyarrow as pa

from ltm.lake import Lake
from ltm.schema import lake_schema

PART = "_part"  # the column `LakeParts.frame` adds: the row's partition key


class LakeParts:
    """Reads of the lake restricted to some partitions (all when `parts` is None)."""

    def __init__(self, lake: Lake, parts: list[str] | None = None):
        self.lake = lake
        self.parts = None if parts is None else sorted(set(parts))

    def _keys(self, table: str) -> list[str]:
        if self.parts is not None:  # only these partitions' folders are listed: a home may hold thousands
            return [p for p in self.parts if self.lake.files(table, p)]
        return sorted({f.parent.name.removeprefix("repo=") for f in self.lake.files(table)})

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """The table's rows of these partitions, with the lake schema (what `Lake.read` returns)."""
        tables = [self.lake.read(table, p, columns) for p in self._keys(table)]
        return pa.concat_tables(tables) if tables else _empty(table, columns)

    def frame(self, table: str, columns: list[str] | None = None) -> pl.DataFrame:
        """The table's rows of these partitions as polars, with the partition key in `_part`."""
        frames = [pl.from_arrow(self.lake.read(table, p, columns)).with_columns(pl.lit(p).alias(PART))
                  for p in self._keys(table)]
        if frames:
            return pl.concat(frames, how="vertical")
        return pl.from_arrow(_empty(table, columns)).with_columns(pl.lit(None, pl.String).alias(PART))


def _empty(table: str, columns: list[str] | None) -> pa.Table:
    t = lake_schema(table).empty_table()
    return t.select(columns) if columns else t


def count_by_part(df: pl.DataFrame) -> dict[str, int]:
    """Rows per partition of a frame with `_part`."""
    if df.height == 0:
        return {}
    return {p: int(n) for p, n in df.group_by(PART).len().iter_rows()}


@dataclass
class Ledger:
    """What a build holds per partition, noted beside it (JSON) for the next build."""

    code: str = ""  # `inputs.code_digest` of the code that made the build
    parts: dict[str, str] = field(default_factory=dict)  # partition -> `inputs.part_digests`
    owned: bool = True  # every node and side-table row's `repo` is its partition
    part_nodes: dict[str, dict[str, int]] = field(default_factory=dict)  # label -> partition -> nodes
    part_rels: dict[str, dict[str, int]] = field(default_factory=dict)  # rel -> partition -> edges (not whole)
    part_dups: dict[str, dict[str, int]] = field(default_factory=dict)  # rel -> partition -> duplicates dropped
    part_dangling: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # rel -> partition -> pair -> n
    dangling_ids: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # partition -> label -> ids
    # that its dangling edges name (not whole tables)
    whole: list[str] = field(default_factory=list)  # rel tables with rows joining two partitions
    whole_dups: dict[str, int] = field(default_factory=dict)  # rel -> duplicates dropped (whole tables)
    whole_dangling: dict[str, dict[str, int]] = field(default_factory=dict)  # rel -> pair -> n (whole tables)
    dead: dict[str, int] = field(default_factory=dict)  # label -> deleted nodes' offsets (amends leave holes)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "Ledger | None":
        if not isinstance(data, dict):
            return None
        try:
            return cls(**data)
        except TypeError:  # written by other code
            return None

    def drop_parts(self, parts: set[str]) -> None:
        """Forget what `parts` gave the build (before an amend notes what they give now)."""
        for per in (self.part_nodes, self.part_rels, self.part_dups, self.part_dangling):
            for by_part in per.values():
                for p in parts:
                    by_part.pop(p, None)
        for p in parts:
            self.dangling_ids.pop(p, None)

    def nodes(self) -> dict[str, int]:
        return {label: sum(by.values()) for label, by in self.part_nodes.items()}

    def dangling(self) -> dict[str, int]:
        """Dangling edges dropped, by `REL(A->B)`, as `BuildStats.dangling_edges` reports them."""
        out: dict[str, int] = {}
        for by_part in self.part_dangling.values():
            for pairs in by_part.values():
                for pair, n in pairs.items():
                    out[pair] = out.get(pair, 0) + n
        for pairs in self.whole_dangling.values():
            for pair, n in pairs.items():
                out[pair] = out.get(pair, 0) + n
        return {k: v for k, v in out.items() if v}

    def duplicates(self) -> int:
        return sum(n for by in self.part_dups.values() for n in by.values()) + sum(self.whole_dups.values())
