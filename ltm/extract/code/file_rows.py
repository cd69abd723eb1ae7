"""One file's lake rows and resolution facts, made where the file is parsed (in a worker process).

A worker parses a batch of files and returns, per file, its Class and Function rows (ids, chunks),
its DEFINED_IN edges and the slim facts cross-file resolution needs (definitions without their
text, imports, calls as tuples, base types). Everything per file happens here, so the parent only
reads blobs and resolves; a batch crosses the process boundary once each way.
"""

from __future__ import annotations

import gc
import multiprocessing
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

from ltm import ids
from ltm.extract.code.chunks import class_chunk, function_chunk
from ltm.extract.languages import LANGUAGES, ts_query
from ltm.extract.parse import parse_source

# What cross-file resolution reads of a definition; the rest (text, signature, ...) is in its row.
_SLIM = ("kind", "name", "qualified_name", "parent_kind", "parent_qualified", "class_kind", "self_name", "stub",
         "coroutine", "returns", "macro", "singleton", "object", "params")

FileJob = tuple[str, str, bytes]  # path, language, source


def _plain(defs: list[dict]) -> set[int]:
    """Which definitions keep their plain id where a file defines one qualified name more than once: the first
    with a body of its own (a typing overload's implementation after its `...` stubs), else the first."""
    first: dict[tuple[str, str], int] = {}
    for i, d in enumerate(defs):
        key = (d["kind"] == "class", d["qualified_name"])
        j = first.setdefault(key, i)
        if j != i and defs[j]["stub"] and not d["stub"]:
            first[key] = i
    return set(first.values())


def _suffixes(defs: list[dict], plain: set[int]) -> list[str]:
    """What each definition's id adds to its plain id: nothing for the one `_plain` picks (and for every name
    defined once); the parameters where they tell it from the others of its name (`(String,int)`, Swift's
    `(_:didFail:)`, `ltm.extract.overloads`); else those parameters and its ordinal among the definitions of that
    name and those parameters, in source order (`check(Class<?>)@2`: a Java enum's constants each defining
    `check`, a Python redefinition, `@2` alone where no parameters are known).

    Never a line number: an overload keeps its id when lines above it are added or removed."""
    group = [(d["kind"] == "class", d["qualified_name"]) for d in defs]
    keys: dict[tuple[bool, str], list[str | None]] = defaultdict(list)
    for d, g in zip(defs, group):
        keys[g].append(d.get("overload"))
    seen: Counter[tuple[bool, str, str | None]] = Counter()
    out = []
    for i, (d, g) in enumerate(zip(defs, group)):
        key = d.get("overload")
        seen[(*g, key)] += 1
        if i in plain:
            out.append("")
        elif key is not None and keys[g].count(key) == 1:
            out.append(key)
        else:
            out.append(f"{key or ''}@{seen[(*g, key)]}")
    return out


def file_rows(repo: str, path: str, language: str, src: bytes) -> dict:
    """Parse one file into its entity rows and facts.

    Keys: `Class`, `Function`, `DEFINED_IN` (lake rows), `def_ids` (one per definition, in
    source order), `top` (names defined at the top level), `facts` (as `parse_source`, with
    slim definitions).
    """
    facts = parse_source(LANGUAGES[language], src)
    fid = ids.file_id(repo, path)
    classes, functions, defined_in, def_ids, top = [], [], [], [], []
    suffixes = _suffixes(facts["defs"], _plain(facts["defs"]))
    for d, suffix in zip(facts["defs"], suffixes):
        common = {"repo": repo, "name": d["name"], "qualified_name": d["qualified_name"], "file_path": path,
                  "line_start": d["line_start"], "line_end": d["line_end"], "docstring": d["docstring"]}
        if d["kind"] == "class":
            eid = ids.class_id(repo, path, d["qualified_name"]) + suffix
            classes.append({"id": eid, "vector_id": ids.vector_id(eid), **common, "kind": d["class_kind"],
                            "text": class_chunk(path, d)})
            label = "Class"
        else:
            eid = ids.function_id(repo, path, d["qualified_name"]) + suffix
            functions.append({"id": eid, "vector_id": ids.vector_id(eid), **common, "signature": d["signature"],
                              "is_method": d["parent_kind"] == "class", "body_hash": d["body_hash"],
                              "text": function_chunk(path, d)})
            label = "Function"
        defined_in.append({"src": eid, "dst": fid, "src_label": label, "dst_label": "File", "repo": repo})
        def_ids.append(eid)
        if d["parent_kind"] is None:
            top.append(d["name"])
    spec = LANGUAGES[language]
    extends = re.compile(spec.extension_method) if spec.extension_method else None
    facts["defs"] = [{k: d[k] for k in _SLIM} | _extended(extends, d) for d in facts["defs"]]
    return {"Class": classes, "Function": functions, "DEFINED_IN": defined_in, "def_ids": def_ids, "top": top,
            "facts": facts}


def _extended(pattern: re.Pattern | None, d: dict) -> dict:
    """`{"extends": "JToken"}` for C#'s `static bool IsNull(this JToken t)`, called as `token.IsNull()`."""
    m = pattern.search(d["signature"]) if pattern is not None and d["kind"] == "function" else None
    return {"extends": m[1].rpartition(".")[2]} if m else {}


def _batch(repo: str, jobs: list[FileJob]) -> list[dict]:
    return [file_rows(repo, path, language, src) for path, language, src in jobs]


def _warm(languages: list[str]) -> None:
    for name in languages:
        ts_query(name)


def _start_worker(languages: list[str]) -> None:
    gc.disable()  # a worker's rows are acyclic, and a collection would touch the pages forked from the parent
    _warm(languages)


class RowPool:
    """Batches of files to `workers` processes; results come back in submission order.

    With one worker everything runs in this process. The pool forks (or uses a forkserver in a
    threaded process, such as Dagster's) when it is opened, before any git pipe exists, so the
    workers inherit no file descriptor that could keep a git process waiting.
    """

    def __init__(self, repo: str, workers: int, batch_bytes: int):
        self.repo, self.workers, self.batch_bytes = repo, workers, batch_bytes
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[FileJob] = []
        self._size = 0
        self._futures: list[Future | list[dict]] = []

    def add(self, path: str, language: str, src: bytes) -> None:
        """Queue one file; a full batch goes to a worker at once."""
        self._pending.append((path, language, src))
        self._size += len(src)
        if self._size >= self.batch_bytes:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        jobs, self._pending, self._size = self._pending, [], 0
        if self._pool is None:
            self._futures.append(_batch(self.repo, jobs))
        else:
            self._futures.append(self._pool.submit(_batch, self.repo, jobs))

    def results(self) -> Iterator[dict]:
        """Every file's `file_rows`, in the order the files were added."""
        self._flush()
        for f in self._futures:
            yield from (f if isinstance(f, list) else f.result())
        self._futures = []


@contextmanager
def row_pool(repo: str, workers: int, batch_bytes: int, languages: list[str]) -> Iterator[RowPool]:
    """A `RowPool`, its worker processes started (and the languages' queries compiled) on entry."""
    pool = RowPool(repo, workers, batch_bytes)
    if workers <= 1:
        yield pool
        return
    _warm(languages)  # compiled once here: forked workers inherit the queries
    if threading.active_count() == 1:
        ctx = multiprocessing.get_context("fork")  # cheapest start, safe without threads
    else:  # never fork a threaded process: a forkserver with the grammars preloaded
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ltm.extract.code.file_rows"])
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_start_worker,
                             initargs=(languages,)) as executor:
        executor.submit(_warm, languages)  # with fork, every worker starts here
        pool._pool = executor
        yield pool
