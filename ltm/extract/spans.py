"""Entity spans of a blob (functions and classes with their lines), parsed once per blob id.

The spans come from `code_entities.parse_definitions`, so qualified names (and therefore ids) are
the ones the HEAD extraction writes. A content-addressed sqlite cache under `<home>/cache/spans/`
keeps them across runs; its key includes a hash of the language's query file, so a changed query
never serves stale spans.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from ltm.extract.code_entities import MAX_FILE_BYTES, parse_definitions
from ltm.extract.gitrepo import BlobReader
from ltm.extract.languages import LanguageSpec

_VERSION = "1"  # bump when the cached fields change
_MEMORY_ENTRIES = 8192


@dataclass(frozen=True)
class Span:
    """One definition in one blob: kind (function/class), names, lines, and a hash of its body."""

    kind: str
    name: str
    qualified_name: str
    line_start: int
    line_end: int
    body_hash: str


@cache
def query_version(language: str) -> str:
    """A short hash of the language's query file and our cache format."""
    text = resources.files("ltm.extract").joinpath("queries", f"{language}.scm").read_bytes()
    return hashlib.sha1(text + _VERSION.encode()).hexdigest()[:12]


def _body_hash(d: dict) -> str:
    # The text without the first occurrence of the name: a body that stayed while the name changed
    # hashes the same, which is how a function rename is recognised.
    text = d["text"].replace(d["name"], "", 1)
    return hashlib.sha1(text.encode("utf-8", errors="replace")).hexdigest()[:16]


def spans_of(spec: LanguageSpec, src: bytes) -> list[Span]:
    """The definitions of one source text as spans, in source order."""
    defs, _ = parse_definitions(spec, src)
    return [
        Span(d["kind"], d["name"], d["qualified_name"], d["line_start"], d["line_end"], _body_hash(d)) for d in defs
    ]


class SpanCache:
    """Blob id -> spans: an in-memory map in front of a sqlite file (committed in batches)."""

    def __init__(self, path: Path | None, commit_every: int = 500):
        self._mem: dict[tuple[str, str], list[Span] | None] = {}
        self._db: sqlite3.Connection | None = None
        self._pending = 0
        self._commit_every = commit_every
        self.hits = self.misses = 0
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS spans (key TEXT PRIMARY KEY, data TEXT NOT NULL)")

    def get(self, key: tuple[str, str]) -> list[Span] | None | bool:
        """The cached spans (None: unparseable blob), or False when not cached."""
        if key in self._mem:
            self.hits += 1
            return self._mem[key]
        if self._db is not None:
            row = self._db.execute("SELECT data FROM spans WHERE key = ?", (":".join(key),)).fetchone()
            if row is not None:
                self.hits += 1
                data = json.loads(row[0])
                spans = None if data is None else [Span(*s) for s in data]
                self._remember(key, spans)
                return spans
        self.misses += 1
        return False

    def put(self, key: tuple[str, str], spans: list[Span] | None) -> None:
        self._remember(key, spans)
        if self._db is not None:
            data = None if spans is None else [list(s.__dict__.values()) for s in spans]
            self._db.execute("INSERT OR REPLACE INTO spans VALUES (?, ?)", (":".join(key), json.dumps(data)))
            self._pending += 1
            if self._pending >= self._commit_every:
                self.flush()

    def _remember(self, key: tuple[str, str], spans: list[Span] | None) -> None:
        if len(self._mem) >= _MEMORY_ENTRIES:
            self._mem.pop(next(iter(self._mem)))
        self._mem[key] = spans

    def flush(self) -> None:
        if self._db is not None and self._pending:
            self._db.commit()
            self._pending = 0

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None


class SpanReader:
    """Spans of blobs by id: cache first, else one read from `git cat-file --batch` and one parse."""

    def __init__(self, blobs: BlobReader, cache: SpanCache, max_file_bytes: int = MAX_FILE_BYTES):
        self._blobs, self._cache, self._max = blobs, cache, max_file_bytes
        self.parsed = 0
        self.bytes_parsed = 0
        self.skipped = 0

    def spans(self, blob: str, spec: LanguageSpec) -> list[Span] | None:
        """The blob's spans; None for a binary or oversized blob (counted in `skipped`)."""
        key = (blob, f"{spec.name}-{query_version(spec.name)}")
        got = self._cache.get(key)
        if got is not False:
            return got  # type: ignore[return-value]
        src = self._blobs.read(blob)
        result: list[Span] | None
        if len(src) > self._max or b"\0" in src[:8192]:
            result = None
            self.skipped += 1
        else:
            result = spans_of(spec, src)
            self.parsed += 1
            self.bytes_parsed += len(src)
        self._cache.put(key, result)
        return result
