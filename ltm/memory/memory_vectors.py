"""The memories' vectors as one float32 matrix, read from the lake a batch at a time.

The similarity pass (`ltm.memory.similarity`) reads vectors by row index: one row per memory, in
the order of the memories frame. Polars' list column of a million 384-float vectors costs several
copies of 1.5 GB on the way to numpy; here the `embeddings` files are read `BATCH_ROWS` rows at a
time and each batch is written straight into its rows of the matrix. Above `IN_MEMORY_BYTES` the
matrix is a `numpy.memmap` in a scratch folder the caller owns (the page cache holds what fits;
the process does not), so the pass's resident memory is bounded by the settings, not by the
number of memories.

A memory without a vector, or with one of another dimension than the most common, is a zero row
(it is similar to nothing). A `vector_id` written twice: the last row wins, as in `unique(keep="last")`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ltm.errors import LakeError
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION

BATCH_ROWS = 65_536  # embeddings rows read at once
IN_MEMORY_BYTES = 256 << 20  # a larger matrix is a memmap on disk


def matrix(n: int, dim: int, scratch: Path | None) -> np.ndarray:
    """A zero float32 (n, dim) matrix: in memory up to `IN_MEMORY_BYTES`, else a memmap in `scratch`."""
    if scratch is None or n * dim * 4 <= IN_MEMORY_BYTES:
        return np.zeros((n, dim), dtype=np.float32)
    return np.lib.format.open_memmap(Path(scratch) / "vectors.npy", mode="w+", dtype=np.float32, shape=(n, dim))


def _dimension(lake: Lake, vector_ids: pl.Series) -> int:
    """The most common dimension among the memories' vectors (1 when none has one)."""
    dims = pl.from_arrow(lake.read("embeddings", MEMORY_PARTITION, columns=["vector_id", "dim"]))
    dims = dims.unique("vector_id", keep="last").join(pl.DataFrame({"vector_id": vector_ids}), on="vector_id")  # type: ignore[union-attr]
    found = dims["dim"].filter(dims["dim"] > 0).to_numpy()
    return int(np.bincount(found).argmax()) if found.size else 1


def read_vectors(lake: Lake, vector_ids: pl.Series, scratch: Path | None) -> np.ndarray:
    """One float32 row per entry of `vector_ids` (the memories' order) from the lake's `embeddings`
    of the `memories` partition; see the module doc. `scratch`: a folder for a large matrix."""
    dim = _dimension(lake, vector_ids)
    out = matrix(len(vector_ids), dim, scratch)
    rows = pl.DataFrame({"vector_id": vector_ids, "row": np.arange(len(vector_ids), dtype=np.int64)})
    rows = rows.filter(pl.col("vector_id").is_not_null())
    for f in lake.files("embeddings", MEMORY_PARTITION):
        try:
            batches = pq.ParquetFile(f).iter_batches(batch_size=BATCH_ROWS, columns=["vector_id", "vector"])
            for batch in batches:
                _fill(out, rows, batch, dim)
        except OSError as e:  # pyarrow's ArrowInvalid is an OSError too
            raise LakeError(f"lake file {f} is damaged ({e}): run `ltm ingest` to rebuild the memories' embeddings") from e
    return out


def _fill(out: np.ndarray, rows: pl.DataFrame, batch, dim: int) -> None:
    """Write one embeddings batch into the rows of the memories it belongs to."""
    at = pl.DataFrame({"vector_id": pl.Series(batch.column(0)).cast(pl.String), "k": np.arange(batch.num_rows)})
    hit = at.join(rows, on="vector_id").sort("k", maintain_order=True)  # batch order: a later duplicate wins
    if hit.height == 0:
        return
    k, r = hit["k"].to_numpy(), hit["row"].to_numpy()
    col = batch.column(1)
    ok = pc.list_value_length(col).fill_null(0).to_numpy(zero_copy_only=False)[k] == dim
    out[r[~ok]] = 0.0
    if ok.any():
        picked = col.take(k[ok])
        out[r[ok]] = picked.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False).reshape(-1, dim)
