"""A lake partition's part files, each read once while it is unchanged (name, size, mtime).

Online adds append a small part file per table; the long-lived readers of the `memories`
partition (the graph overlay, retrieval's superseded memories, an add's links and ids) re-read
only the files that changed since their last look: a `stat` per file when nothing did.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Container
from pathlib import Path
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
FileKey = tuple[str, int, int]  # (path, size, mtime_ns)


def part_file_keys(folder: Path) -> list[FileKey]:
    """(path, size, mtime_ns) of the `part-*.parquet` files in `folder` as they are now, in name order.

    `os.scandir`, not `Path.glob`: an online add looks at a few partitions of up to `MAX_PARTS`
    files each, and pathlib's objects cost more than the `stat`s."""
    out = []
    try:
        with os.scandir(folder) as entries:
            found = sorted((e.name, e.path) for e in entries if e.name.startswith("part-") and e.name.endswith(".parquet"))
    except (FileNotFoundError, NotADirectoryError):
        return out
    for _, path in found:
        try:
            st = os.stat(path)
        except FileNotFoundError:  # swapped out by a writer between the listing and the stat
            continue
        out.append((path, st.st_size, st.st_mtime_ns))
    return out


class PartFiles(Generic[T]):
    """`load(path)` of every `part-*.parquet` in `folder`, by file, kept while a file is unchanged."""

    def __init__(self, folder: Path, load: Callable[[Path], T], empty: Callable[[], T] | None = None):
        self.folder = Path(folder)
        self._load = load
        self._empty = empty
        self.by_file: dict[FileKey, T] = {}

    def keys(self) -> list[FileKey]:
        """The folder's part files as they are now, in name order."""
        return part_file_keys(self.folder)

    def refresh(self, skip: Container[FileKey] = frozenset()) -> bool:
        """Read the files that are new or changed, forget the ones gone; True when anything changed.

        `skip`: files whose rows the caller already has elsewhere; they stand as `empty()`, unread.
        A file a writer replaces while it is read is left for the next refresh.
        """
        keys = self.keys()
        if list(self.by_file) == keys:
            return False
        fresh: dict[FileKey, T] = {}
        for key in keys:
            if key in self.by_file:
                fresh[key] = self.by_file[key]
            elif key in skip and self._empty is not None:
                fresh[key] = self._empty()
            else:
                try:
                    fresh[key] = self._load(Path(key[0]))
                except (OSError, ValueError) as e:
                    log.debug("%s not read (%s): next refresh", key[0], e)
        self.by_file = fresh
        return True

    def values(self) -> list[T]:
        """What each file gave, in file-name order (a later part, a later add)."""
        return list(self.by_file.values())
