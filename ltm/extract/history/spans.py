"""Entity spans of a blob (functions and classes with their lines), parsed once per blob id.

The spans come from `code_entities.parse_definitions`, so qualified names (and therefore ids) are
the ones the HEAD extraction writes. A content-addressed sqlite cache under `<home>/cache/spans/`
keeps them across runs; its key includes a hash of the language's query file, so a changed query
never serves stale spans.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple

from tree_sitter import Node, Parser, Query, QueryCursor, QueryError, Tree

from ltm.extract.conditionals import error_size, first_branches
from ltm.extract.parse import parse_definitions
from ltm.extract.languages import LANGUAGES, LanguageSpec, query_text, read_as, ts_language
from ltm.extract.parse import (_DEF_KINDS, _first, _namespace_only, _split_name, _text, clashing_instance_methods,
                               instance_name, singleton)

_VERSION = "3"  # bump when the cached fields change
_MEMORY_ENTRIES = 65536
MEMORY_SPANS = 400_000  # spans held in memory (about 200 MB): the rest are read back from sqlite


class Span(NamedTuple):
    """One definition in one blob: kind (function/class), names, lines, and a hash of its body.

    A tuple: a large history reads millions back from the cache, and a tuple is made 3x faster than a
    frozen dataclass."""

    kind: str
    name: str
    qualified_name: str
    line_start: int
    line_end: int
    body_hash: str


@cache
def query_version(language: str) -> str:
    """A short hash of what a language's spans come from and of our cache format: the query's patterns
    that define or qualify entities (`spans_query`). A change to the call, import or variable patterns
    keeps the span cache and the SZZ results; so does the text the grammar reads (`hide_conditionals`).

    The patterns are hashed as text, never compiled: the SZZ settings ask this of every language, and
    compiling them all took about 0.6 s of each bugs stage on a quiet machine. That every language's
    patterns compile as cut, so `spans_query` never falls back to the whole file, is a test's to check.
    """
    text = _span_patterns(language)
    hidden = "#if" if LANGUAGES[language].hide_conditionals else ""
    # C and C++ files with braces that balance only per `#if` branch are read as `parse_source` reads them
    reading = "+first-branches+annotation-macros" if language in ("c", "cpp") else ""
    reading += "+cpp-headers" if language == "c" else ""  # a `.h` written in C++ is read as C++ (`read_as`)
    reading += "+singleton-names" if language == "ruby" else ""  # `Foo#m` beside `def self.m` (`named_apart`)
    return hashlib.sha1((text + _VERSION + hidden + reading).encode()).hexdigest()[:12]


def _patterns(text: str) -> list[str]:
    """The top-level patterns of a query file (each with its trailing captures), comments dropped."""
    out, cur, depth, i, n = [], [], 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == ";":  # a comment runs to the end of the line
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i : j + 1])
            i = j + 1
            continue
        if c in "([" and depth == 0 and "".join(cur).strip():
            out.append("".join(cur))
            cur = []
        depth += c in "(["
        depth -= c in ")]"
        cur.append(c)
        i += 1
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


_DEF_CAPTURES = tuple((k, f"{k}.name", f"{k}.owner") for k in _DEF_KINDS)
_SPAN_CAPTURE = re.compile(r"@(class|function|scope|impl)\b")


def _span_patterns(language: str) -> str:
    return "\n".join(p for p in _patterns(query_text(language).decode("utf-8")) if _SPAN_CAPTURE.search(p))


@cache
def spans_query(language: str) -> Query | None:
    """The language's query reduced to the patterns that define or qualify entities (faster to run)."""
    try:
        return Query(ts_language(language), _span_patterns(language))
    except QueryError:  # a query this splitter can't cut: fall back to the full parse
        return None


@dataclass(frozen=True)
class Located:
    """A span with its node's byte range, so another version of the blob can shift it."""

    span: Span
    start_byte: int
    end_byte: int
    singleton: bool = False  # a Ruby class's own method (`def self.m`): see `named_apart`


@dataclass
class Matches:
    """What a query found in a tree: definitions, naming scopes, and the byte ranges of their captures."""

    found: dict[int, tuple[str, Node, str, str | None]] = field(default_factory=dict)
    scopes: dict[int, str] = field(default_factory=dict)
    impls: set[int] = field(default_factory=set)
    # node id of a definition or scope -> (its start, its end, the byte ranges of its match's other captures)
    holders: dict[int, tuple[int, int, list[tuple[int, int]]]] = field(default_factory=dict)


def collect(query: Query, root: Node, byte_ranges: list[tuple[int, int]] | None = None) -> Matches:
    """Run the reduced query over `root`, or only over the matches that intersect `byte_ranges`."""
    m = Matches()
    cursor = QueryCursor(query)
    for rng in byte_ranges if byte_ranges is not None else [None]:
        if rng is not None:
            cursor.set_byte_range(*rng)
        for _, caps in cursor.matches(root):
            holder = None
            for kind, name_cap, owner_cap in _DEF_CAPTURES:
                if kind in caps and (raw := _text(_first(caps, name_cap))):
                    holder = caps[kind][0]
                    if caps[name_cap][0].type == "simple_symbol":  # Ruby's `attr_reader :request`
                        raw = raw.removeprefix(":")
                    elif raw[0] == "`" and raw[-1] == "`":  # Kotlin's `fun `reads a name`()`, as parse_source
                        raw = raw[1:-1]
                    owner, name = _split_name(raw)
                    owner = _text(_first(caps, owner_cap)) or owner
                    if _namespace_only(holder):  # Ruby's `module Rack`: a scope, as parse_source reads it
                        m.scopes[holder.id] = f"{owner}.{name}" if owner else name
                    elif owner or holder.id not in m.found or not m.found[holder.id][3]:
                        m.found[holder.id] = (kind, holder, name, owner)  # two patterns: the one with an owner
            if "scope" in caps and (name := _text(_first(caps, "scope.name"))):
                holder = caps["scope"][0]
                m.scopes[holder.id] = _split_name(name)[1]
            if "impl" in caps and (name := _text(_first(caps, "impl.type"))):
                holder = caps["impl"][0]
                m.scopes[holder.id] = name
                m.impls.add(holder.id)
            if holder is not None and byte_ranges is not None:
                others = [(n.start_byte, n.end_byte) for ns in caps.values() for n in ns if n.id != holder.id]
                got = m.holders.setdefault(holder.id, (holder.start_byte, holder.end_byte, []))
                got[2].extend(others)
    return m


def locate(src: bytes, m: Matches) -> list[Located]:
    """The definitions of `m` as located spans, in source order (outer first where two start together)."""
    # The naming rules of `parse.parse_source` (enclosing definitions and scopes, `A::f` owners),
    # restricted to definitions; tests/extract/test_spans.py holds both to the same output.
    found, scopes, impls = m.found, m.scopes, m.impls
    out = []
    for kind, node, name, owner in sorted(found.values(), key=lambda d: (d[1].start_byte, -d[1].end_byte)):
        chain, has_parent, outer_owner = [], False, None
        p = node.parent
        while p is not None:
            if p.id in found:
                chain.append(found[p.id][2])
                has_parent, outer_owner = True, found[p.id][3]
            elif p.id in scopes:
                chain.append(scopes[p.id])
                has_parent, outer_owner = has_parent or p.id in impls, None
            p = p.parent
        if owner and not has_parent:
            chain = [owner]
        elif outer_owner:
            chain.append(outer_owner)  # inside C++'s `A::f` or `class A::B`: A encloses it too
        body = src[node.start_byte : node.end_byte].replace(name.encode("utf-8", errors="replace"), b"", 1)
        span = Span(kind, name, ".".join([*reversed(chain), name]), node.start_point[0] + 1, node.end_point[0] + 1,
                    hashlib.sha1(body).hexdigest()[:16])
        out.append(Located(span, node.start_byte, node.end_byte, kind == "function" and singleton(node)))
    return named_apart(out)


def named_apart(located: list[Located]) -> list[Located]:
    """The spans with Ruby's instance methods named `Foo#m` where a singleton method of the file is `Foo.m`, as
    `parse.parse_source` names them. A span kept from another version of the file may carry the other form, so
    each name is first read back to its plain form: the clash is a fact of the whole file, not of one span."""
    if not any(loc.singleton or "#" in loc.span.qualified_name for loc in located):
        return located  # every language but Ruby, and Ruby files without singleton methods
    plain = [_plain(loc) for loc in located]
    clash = clashing_instance_methods([(loc.span.kind, qn, loc.singleton) for loc, qn in zip(located, plain)])
    out = []
    for i, (loc, qn) in enumerate(zip(located, plain)):
        qn = instance_name(qn, loc.span.name) if i in clash else qn
        out.append(loc if qn == loc.span.qualified_name else Located(loc.span._replace(qualified_name=qn),
                                                                     loc.start_byte, loc.end_byte, loc.singleton))
    return out


def _plain(loc: Located) -> str:
    """`Foo#m` -> `Foo.m` (a JavaScript `#private` name is `Foo.#private`, never this form)."""
    qn, name = loc.span.qualified_name, loc.span.name
    if loc.span.kind == "function" and len(qn) > len(name) + 1 and qn.endswith("#" + name) and not name.startswith("#"):
        return f"{qn[: -len(name) - 1]}.{name}"
    return qn


def spans_from_tree(spec: LanguageSpec, src: bytes, tree: Tree, query: Query) -> list[Span]:
    """Spans of a parsed source, with the reduced query of `spans_query`."""
    return [loc.span for loc in located_spans(spec, src, tree, query)]


def needs_branches(spec: LanguageSpec, src: bytes, tree: Tree) -> bool:
    """Whether `parse_source` may read this C or C++ text from its first `#if` branches."""
    return spec.group == "c" and tree.root_node.has_error and b"#if" in src


def located_spans(spec: LanguageSpec, src: bytes, tree: Tree, query: Query) -> list[Located]:
    """The definitions of a parsed source as located spans, read as `parse.parse_source` reads them: a C
    file from its first `#if` branches when they parse with fewer errors, then the other branches."""
    whole = locate(src, collect(query, tree.root_node))
    if not needs_branches(spec, src, tree):
        return whole
    shown = first_branches(src)
    branch = Parser(ts_language(spec.name)).parse(spec.parser_text(shown))
    if error_size(branch.root_node) >= error_size(tree.root_node):
        return whole
    first = locate(src, collect(query, branch.root_node))
    fns = [(x.start_byte, x.end_byte) for x in first if x.span.kind == "function"]
    other = [x for x in whole if shown[x.start_byte] != src[x.start_byte]
             and not any(s <= x.start_byte < e for s, e in fns)]
    return sorted(first + other, key=lambda x: (x.start_byte, -x.end_byte))


def _body_hash(d: dict) -> str:
    # The text without the first occurrence of the name: a body that stayed while the name changed
    # hashes the same, which is how a function rename is recognised.
    text = d["text"].replace(d["name"], "", 1)
    return hashlib.sha1(text.encode("utf-8", errors="replace")).hexdigest()[:16]


def spans_of(spec: LanguageSpec, src: bytes) -> list[Span]:
    """The definitions of one source text as spans, in source order (names as `parse_definitions`)."""
    spec = read_as(spec, src)
    query = spans_query(spec.name)
    if query is not None:
        return spans_from_tree(spec, src, Parser(ts_language(spec.name)).parse(spec.parser_text(src)), query)
    defs, _ = parse_definitions(spec, src)
    return [
        Span(d["kind"], d["name"], d["qualified_name"], d["line_start"], d["line_end"], _body_hash(d)) for d in defs
    ]


class SpanCache:
    """Blob id -> spans: an in-memory map (bounded by entries and by `memory_spans`) in front of a sqlite file
    (committed in batches)."""

    def __init__(self, path: Path | None, commit_every: int = 500, memory_spans: int = MEMORY_SPANS):
        self._mem: dict[tuple[str, str], list[Span] | None] = {}
        self._max_spans = memory_spans
        self._spans_held = 0
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
                spans = None if data is None else list(map(Span._make, data))
                self._remember(key, spans)
                return spans
        self.misses += 1
        return False

    def peek(self, key: tuple[str, str]) -> list[Span] | None | bool:
        """Like `get`, without counting a hit or a miss."""
        hits, misses = self.hits, self.misses
        got = self.get(key)
        self.hits, self.misses = hits, misses
        return got

    def put(self, key: tuple[str, str], spans: list[Span] | None) -> None:
        self._remember(key, spans)
        if self._db is not None:
            data = None if spans is None else [list(s) for s in spans]
            self._db.execute("INSERT OR REPLACE INTO spans VALUES (?, ?)", (":".join(key), json.dumps(data)))
            self._pending += 1
            if self._pending >= self._commit_every:
                self.flush()

    def _remember(self, key: tuple[str, str], spans: list[Span] | None) -> None:
        # Bounded by entries and by spans: a large file's versions hold hundreds of spans each.
        while self._mem and (len(self._mem) >= _MEMORY_ENTRIES or self._spans_held >= self._max_spans):
            self._spans_held -= len(self._mem.pop(next(iter(self._mem))) or ())
        old = self._mem.pop(key, None)
        self._spans_held += len(spans or ()) - len(old or ())
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
