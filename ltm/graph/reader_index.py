"""What a reader loads per label of a build, saved beside the build so a cold reader skips it.

A fresh process answering one question (`ltm query`) spent ~0.5 s of its ~1.8 s on a 100,000-node
build reading each label's ids and ranking signals (`LabelIndex`) and cutting the names into
words (`NameWords`). A build never changes, so the graph build saves both, once, beside its
database: `<build>.reader-<label>.arrow` (one row per node, in internal-offset order) and
`<build>.words-<label>.arrow` (a stem and its positions per row). Readers memory-map them (a few
milliseconds) and compute what is missing or was saved by other code: each file carries the
format and a digest of the word rules, and a file that does not match is ignored. Old builds
without the files still read; pruning a build removes its files with it (`build._remove_build`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from ltm.graph import name_words as name_words_module
from ltm.graph.name_words import NameWords

FORMAT = "1"
_WORDS_RULES = hashlib.sha1(Path(name_words_module.__file__).read_bytes()).hexdigest()[:12]


def _path(build: Path, kind: str, label: str) -> Path:
    return build.with_name(f"{build.name}.{kind}-{label}.arrow")


def _write(path: Path, table: pa.Table) -> None:
    table = table.replace_schema_metadata({"format": FORMAT, "words": _WORDS_RULES})
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    os.replace(tmp, path)


def _read(path: Path) -> pa.Table | None:
    try:
        table = pa.ipc.open_file(pa.memory_map(str(path))).read_all()
    except (OSError, pa.ArrowInvalid):
        return None
    meta = table.schema.metadata or {}
    if meta.get(b"format") != FORMAT.encode() or meta.get(b"words") != _WORDS_RULES.encode():
        return None
    return table


def save_label(build: Path, label: str, columns: dict[str, np.ndarray | list | None], words: NameWords | None) -> None:
    """Save a label's reader columns (ids and signals, offset order) and its name words beside `build`."""
    cols = {k: v for k, v in columns.items() if v is not None}
    if words is not None:
        cols["name_size"] = words.sizes
        vocab, flat = words.to_arrow()
        positions = pa.ListArray.from_arrays(pa.array(words.starts, pa.int32()), pa.array(flat, pa.int32()))
        _write(_path(build, "words", label), pa.table({"word": vocab.column("word"), "positions": positions}))
    _write(_path(build, "reader", label), pa.table(cols))


def load_label(build: Path, label: str) -> dict[str, np.ndarray | list] | None:
    """The columns `save_label` saved for `label` of `build`, or None when absent or of other code."""
    table = _read(_path(build, "reader", label))
    if table is None:
        return None
    out: dict[str, np.ndarray | list] = {"id": table.column("id").to_pylist()}
    for name in table.column_names:
        if name != "id":
            out[name] = table.column(name).to_numpy(zero_copy_only=False)
    return out


def load_words(build: Path, label: str, sizes: np.ndarray) -> NameWords | None:
    """The name words `save_label` saved for `label` of `build` (`sizes`: its `name_size` column), or None."""
    table = _read(_path(build, "words", label))
    if table is None:
        return None
    positions = table.column("positions").combine_chunks()
    counts = np.diff(positions.offsets.to_numpy())
    vocab = pa.table({"word": table.column("word"), "count": pa.array(counts, pa.int64())})
    return NameWords.from_arrow(vocab, positions.values.to_numpy(), np.asarray(sizes, dtype=np.int32))
