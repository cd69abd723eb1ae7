"""The Parquet lake: `lake/<table>/repo=<key>/part-*.parquet`, the source of truth.

A stage replaces whole repository partitions at once: every table is written into a staging
folder first and the folders are swapped in together when the stage commits, so a crash leaves
the previous partition in place and a reader never sees half a table. An append (the online
add's small part file) is one file renamed into the live partition.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ltm.errors import LakeError
from ltm.redact import redact_table
from ltm.schema import lake_schema

ROWS_PER_FILE = 200_000
SCAN_ROWS = 65_536  # rows `Lake.scan` hands out at a time
log = logging.getLogger(__name__)


def _part_names(folder: Path) -> list[str]:
    """The `part-*.parquet` names in `folder` (none if it is missing), in name order."""
    try:
        return sorted(n for n in os.listdir(folder) if n.startswith("part-") and n.endswith(".parquet"))
    except (FileNotFoundError, NotADirectoryError):
        return []


class LakeWriter:
    """Tables staged for one repository partition; `Lake.write` commits them together."""

    def __init__(self, lake: "Lake", repo: str):
        self._lake, self._repo = lake, repo
        self._staged: dict[str, Path] = {}
        self.rows: dict[str, int] = {}
        self.redacted: Counter[str] = Counter()  # secrets replaced by their marker, by kind
        self._streams: dict[str, TableStream] = {}
        self._appended: dict[str, tuple[Path, str]] = {}  # table -> its staged new part file, its name (`append`)

    def _redact(self, table: pa.Table) -> pa.Table:
        return redact_table(table, self.redacted) if self._lake.redact else table

    def write(self, table: str, data: pa.Table | Iterable[pa.RecordBatch] | list[dict], redacted: bool = False) -> int:
        """Stage the full content of `table` for this repository (replacing what was there).

        `redacted`: every row was redacted before (rows read back from the lake, or redacted by
        the caller), so the text is not scanned again."""
        schema = lake_schema(table)
        self._lake.recover(table, self._repo)
        stage = self._lake.root / table / f".stage-{self._repo}-{uuid.uuid4().hex[:8]}"
        stage.mkdir(parents=True)
        self._staged[table] = stage
        if isinstance(data, list):
            data = pa.Table.from_pylist(data, schema=schema)
        # one batch per chunk: a table read from many small part files is scanned in one piece
        batches = data.combine_chunks().to_batches() if isinstance(data, pa.Table) else data
        n, part, writer = 0, 0, None
        try:
            for batch in batches:
                batch = pa.Table.from_batches([batch]).cast(schema) if batch.schema != schema else pa.Table.from_batches([batch])
                batch = batch if redacted else self._redact(batch)
                if writer is None or n >= ROWS_PER_FILE * (part + 1):
                    if writer is not None:
                        writer.close()
                        part += 1
                    writer = pq.ParquetWriter(stage / f"part-{part:05d}.parquet", schema)
                writer.write_table(batch)
                n += batch.num_rows
            if writer is None:
                pq.write_table(schema.empty_table(), stage / "part-00000.parquet")
        finally:
            if writer is not None:
                writer.close()
        self.rows[table] = n
        return n

    def append(self, table: str, rows: list[dict] | pa.Table, redacted: bool = False) -> int:
        """Stage `rows` as one new part file of the partition, its current files untouched.

        Commits with the other tables (in the order they were staged): the new file is renamed
        into the live partition, so a reader sees it whole or not at all, and a crash before the
        commit leaves the partition as it was. Costs one file, whatever the partition holds.
        Returns the rows appended. `redacted`: the caller redacted the rows' text already
        (`ltm.redact.redact_row`), so they are not scanned again.
        """
        schema = lake_schema(table)
        self._lake.recover(table, self._repo)  # a partition a kill left under `.old-` is put back first
        final = self._lake.partition(table, self._repo)
        existing = _part_names(final)
        new = rows.cast(schema) if isinstance(rows, pa.Table) else pa.Table.from_pylist(rows, schema=schema)
        if not new.num_rows and existing:
            self.rows[table] = 0
            return 0
        # A file, not a folder, beside the partition: removing a folder costs ~2 ms on this disk.
        staged = self._lake.root / table / f".stage-{self._repo}-{uuid.uuid4().hex[:8]}"
        staged.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(new if redacted else self._redact(new), staged)
        name = f"part-{max((int(n[5:-8]) for n in existing), default=-1) + 1:05d}.parquet"
        self._appended[table] = (staged, name)
        self.rows[table] = new.num_rows
        return new.num_rows

    def replace_files(self, table: str, files: list[Path], merged: pa.Table) -> bool:
        """Stage the partition with `files` replaced by one file of `merged` (their rows, read by the
        caller without a lock: part files never change once written), the files added since kept.

        False, with nothing staged, when one of `files` is gone (the partition was rewritten
        meanwhile). The merged file takes the first name of `files`, so it still reads before the
        files added after them. Its rows were redacted when first written: not scanned again.
        """
        self._lake.recover(table, self._repo)
        final = self._lake.partition(table, self._repo)
        current = sorted(final.glob("part-*.parquet")) if final.is_dir() else []
        if not files or not set(files) <= set(current):
            return False
        stage = self._lake.root / table / f".stage-{self._repo}-{uuid.uuid4().hex[:8]}"
        stage.mkdir(parents=True)
        self._staged[table] = stage
        pq.write_table(merged.cast(lake_schema(table)), stage / min(files).name)
        for f in current:
            if f not in files:
                try:
                    os.link(f, stage / f.name)
                except OSError:  # a file system without hard links
                    shutil.copy2(f, stage / f.name)
        self.rows[table] = merged.num_rows
        return True

    def stream(self, table: str, keep: bool = False) -> "TableStream":
        """Stage `table` to be written in pieces: `add(rows)` as they come, memory held per piece.

        `keep`: the partition's current files stay (as `append`), else the rows replace them (as
        `write`). Commits with the other tables; the streams are closed when the block ends.
        """
        self._lake.recover(table, self._repo)
        final = self._lake.partition(table, self._repo)
        stage = self._lake.root / table / f".stage-{self._repo}-{uuid.uuid4().hex[:8]}"
        stage.mkdir(parents=True)
        self._staged[table] = stage
        existing = sorted(final.glob("part-*.parquet")) if keep and final.is_dir() else []
        for f in existing:
            try:
                os.link(f, stage / f.name)
            except OSError:  # a file system without hard links
                shutil.copy2(f, stage / f.name)
        first = max((int(f.stem.split("-")[1]) for f in existing), default=-1) + 1
        out = self._streams[table] = TableStream(self, table, stage, first, empty=not existing)
        self.rows[table] = 0
        return out

    def _commit(self) -> None:
        for s in self._streams.values():
            s.close()
        if self.redacted:
            log.warning("%s: %d secrets redacted before writing (%s)", self._repo, sum(self.redacted.values()),
                        ", ".join(f"{k} {n}" for k, n in sorted(self.redacted.items())))
        for table, stage in self._staged.items():
            final = self._lake.partition(table, self._repo)
            old = final.with_name(f".old-{final.name}-{uuid.uuid4().hex[:8]}")
            if final.exists():
                final.rename(old)
            stage.rename(final)
            shutil.rmtree(old, ignore_errors=True)
        for table, (staged, name) in self._appended.items():  # one file joins each live partition
            final = self._lake.partition(table, self._repo)
            final.mkdir(parents=True, exist_ok=True)
            os.replace(staged, final / name)

    def _abort(self) -> None:
        for s in self._streams.values():
            s.close()
        for stage in self._staged.values():
            shutil.rmtree(stage, ignore_errors=True)
        for staged, _ in self._appended.values():
            staged.unlink(missing_ok=True)


class TableStream:
    """One table of a `LakeWriter` written piece by piece into Parquet files of `ROWS_PER_FILE` rows."""

    def __init__(self, writer: LakeWriter, table: str, stage: Path, first_part: int, empty: bool):
        self._writer, self._table, self._stage = writer, table, stage
        self._schema = lake_schema(table)
        self._part, self._in_part, self._file = first_part, 0, None
        self._empty = empty  # no file yet: an empty one is written if no row comes

    def add(self, rows: list[dict]) -> None:
        """Write `rows` now (redacted like `write`); the caller may drop them afterwards."""
        if not rows:
            return
        batch = self._writer._redact(pa.Table.from_pylist(rows, schema=self._schema))
        if self._file is not None and self._in_part >= ROWS_PER_FILE:
            self._file.close()
            self._file, self._part, self._in_part = None, self._part + 1, 0
        if self._file is None:
            self._file = pq.ParquetWriter(self._stage / f"part-{self._part:05d}.parquet", self._schema)
        self._file.write_table(batch)
        self._in_part += batch.num_rows
        self._writer.rows[self._table] += batch.num_rows
        self._empty = False

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        elif self._empty:
            pq.write_table(self._schema.empty_table(), self._stage / f"part-{self._part:05d}.parquet")
            self._empty = False


class Lake:
    """Read and write lake tables under one root.

    `redact`: replace well-known secret formats in every string column as tables are written
    (`ltm.redact`); the home's setting `redact_secrets: false` turns it off.
    """

    def __init__(self, root: Path, redact: bool = True):
        self.root = Path(root)
        self.redact = redact

    def partition(self, table: str, repo: str) -> Path:
        return self.root / table / f"repo={repo}"

    def recover(self, table: str, repo: str) -> None:
        """Clear what a process killed inside a write of this partition left (hidden, never read).

        A kill between the two renames of a commit leaves the old partition under `.old-`: it is
        put back. Stale staging folders are removed. Writers of one partition are serialised by
        the ingest lock, so no live writer's folder is touched.
        """
        base, final = self.root / table, self.partition(table, repo)
        try:  # one listing (an online add recovers each table it appends to)
            hidden = sorted(n for n in os.listdir(base) if n.startswith("."))
        except FileNotFoundError:
            return
        olds, stages = f".old-{final.name}-", f".stage-{repo}-"
        for old in (base / n for n in hidden if n.startswith(olds) and len(n) == len(olds) + 8):
            if final.exists():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.rename(final)
        for stage in (base / n for n in hidden if n.startswith(stages) and len(n) == len(stages) + 8):
            if stage.is_dir():
                shutil.rmtree(stage, ignore_errors=True)
            else:  # an append's staged file
                stage.unlink(missing_ok=True)

    @contextmanager
    def write(self, repo: str) -> Iterator[LakeWriter]:
        """Stage tables for `repo`; all are swapped in when the block ends without error."""
        writer = LakeWriter(self, repo)
        try:
            yield writer
        except BaseException:
            writer._abort()
            raise
        writer._commit()

    def files(self, table: str, repo: str | None = None) -> list[Path]:
        """Parquet files of a table, for one repository or all, in a stable order."""
        base = self.root / table
        pattern = f"repo={repo}/part-*.parquet" if repo else "repo=*/part-*.parquet"
        return sorted(base.glob(pattern)) if base.is_dir() else []

    def repos(self) -> list[str]:
        """Repository keys that have any partition in the lake."""
        keys = {p.name.removeprefix("repo=") for p in self.root.glob("*/repo=*") if p.is_dir()}
        return sorted(keys)

    def read(self, table: str, repo: str | None = None, columns: list[str] | None = None) -> pa.Table:
        """A whole table (one repository or all) with the lake schema; empty if never written."""
        schema = lake_schema(table)
        files = self.files(table, repo)
        if not files:
            t = schema.empty_table()
            return t.select(columns) if columns else t
        tables = []
        for f in files:
            try:
                tables.append(pq.read_table(f, columns=columns, schema=schema))
            except (pa.ArrowInvalid, OSError) as e:
                raise LakeError(
                    f"lake file {f} is damaged ({e}): run `ltm ingest` on repository "
                    f"{f.parent.name.removeprefix('repo=')} to rebuild it"
                ) from e
        return pa.concat_tables(tables)

    def scan(self, table: str, repo: str, columns: list[str], batch_rows: int = SCAN_ROWS) -> Iterator[pa.RecordBatch]:
        """A table of one repository in record batches of at most `batch_rows` rows, file by file:
        memory follows `batch_rows`, not the table (nothing when it was never written)."""
        for f in self.files(table, repo):
            try:
                yield from pq.ParquetFile(f).iter_batches(batch_size=batch_rows, columns=columns)
            except (pa.ArrowInvalid, OSError) as e:
                raise LakeError(
                    f"lake file {f} is damaged ({e}): run `ltm ingest` on repository {repo} to rebuild it"
                ) from e

    def damaged(self, repo: str) -> list[str]:
        """Tables of `repo` with a Parquet file whose footer cannot be read (truncated, overwritten)."""
        bad = []
        for part in sorted(self.root.glob(f"*/repo={repo}")):
            for f in sorted(part.glob("part-*.parquet")):
                try:
                    pq.read_metadata(f)
                except (pa.ArrowInvalid, OSError):
                    bad.append(part.parent.name)
                    break
        return bad

    def drop_tables(self, repo: str, tables: list[str]) -> None:
        """Remove `repo`'s partitions of `tables` (the stages that own them write them anew)."""
        for table in tables:
            shutil.rmtree(self.partition(table, repo), ignore_errors=True)

    def remove_repo(self, repo: str) -> None:
        """Delete every partition of a repository (used by `ltm repo remove`)."""
        for p in self.root.glob(f"*/repo={repo}"):
            shutil.rmtree(p)
