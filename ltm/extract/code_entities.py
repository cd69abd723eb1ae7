"""Code entities at one revision: File, Module, Class and Function rows and the edges between them.

Files are listed with one `git ls-tree`, read with one `git cat-file --batch`, and parsed with
the language's tree-sitter grammar and query file, in a process pool when there is enough to
parse (results come back in tree order, so every run writes the same rows). A file with syntax
errors yields what parses; binary, huge, generated and minified files are skipped with the
reason on their File row. Imports, calls and base types are resolved across files afterwards
(`resolve.py`).
"""

from __future__ import annotations

import multiprocessing
import os
import posixpath
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ltm import ids
from ltm.extract.chunks import class_chunk, function_chunk, module_chunk
from ltm.extract.filters import MAX_FILE_BYTES, skip_reason
from ltm.extract.gitrepo import GitRepo, TreeEntry, is_safe_path
from ltm.extract.languages import LANGUAGES, LanguageSpec, language_for
from ltm.extract.modules import RepoContext, go_module_path
from ltm.extract.parse import MAX_TEXT_CHARS, parse_definitions, parse_source  # noqa: F401  (re-exported)
from ltm.extract.resolve import Bindings, ParsedFile, Resolver

PARALLEL_MIN_BYTES = 1_000_000  # below this a pool costs more to start than it saves
BATCH_BYTES = 32_000_000
_SHARED_MODULES = {"go", "java", "c_sharp", "c"}  # families whose files share one module
_TABLES = ("File", "Module", "Class", "Function", "DEFINED_IN", "BELONGS_TO", "HAS_METHOD",
           "IMPORTS", "DEPENDS_ON", "EXTENDS", "IMPLEMENTS", "CALLS")


@dataclass
class CodeExtraction:
    """Rows per lake table and counts of what was skipped, parsed and resolved."""

    tables: dict[str, list[dict]] = field(default_factory=lambda: {t: [] for t in _TABLES})
    skipped: Counter = field(default_factory=Counter)
    languages: Counter = field(default_factory=Counter)
    resolution: Counter = field(default_factory=Counter)
    files_parsed: int = 0
    bytes_parsed: int = 0
    syntax_error_files: int = 0
    workers: int = 1
    module_ids: set[str] = field(default_factory=set)


def _edge(src: str, dst: str, src_label: str, dst_label: str, repo: str) -> dict:
    return {"src": src, "dst": dst, "src_label": src_label, "dst_label": dst_label, "repo": repo}


def _parse_job(job: tuple[str, bytes]) -> dict:
    return parse_source(LANGUAGES[job[0]], job[1])


def parse_many(jobs: list[tuple[str, bytes]], workers: int) -> Iterator[dict]:
    """`parse_source` over (language, source) pairs, in order; a process pool when workers > 1."""
    if workers <= 1 or len(jobs) < 2:
        yield from map(_parse_job, jobs)
        return
    if threading.active_count() == 1:
        ctx = multiprocessing.get_context("fork")  # cheapest start (~0.05 s), safe without threads
    else:  # never fork a threaded process (Dagster's): a forkserver with the grammars preloaded
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ltm.extract.parse"])
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        start = 0
        while start < len(jobs):  # bounded batches keep memory flat on a large repository
            size, end = 0, start
            while end < len(jobs) and (size < BATCH_BYTES or end == start):
                size += len(jobs[end][1])
                end += 1
            yield from pool.map(_parse_job, jobs[start:end], chunksize=8)
            start = end


class _Modules:
    """Module ids by (family, name): files of one Go/Java/C# package or C header+source share one."""

    def __init__(self, repo: str):
        self.repo, self.rows, self.by_key, self.known = repo, {}, {}, {}

    def internal(self, spec: LanguageSpec, name: str, path: str) -> str:
        key = (spec.group, name)
        if key in self.by_key and spec.group in _SHARED_MODULES:
            mid = self.by_key[key]
            self.rows[mid]["paths"].append(path)
            return mid
        mid = ids.module_id(self.repo, name)
        if mid in self.rows:  # a.py beside a.pyi, or the same name in two languages
            mid = ids.module_id(self.repo, f"{name}@{path}")
        self.by_key.setdefault(key, mid)
        self.known.setdefault(spec.group, {}).setdefault(name, mid)
        self.rows[mid] = {"id": mid, "name": name, "external": False, "language": spec.name, "paths": [path], "top": []}
        return mid

    def external(self, spec: LanguageSpec, name: str) -> str:
        mid = ids.module_id(self.repo, f"ext:{spec.group}:{name}")
        self.rows.setdefault(mid, {"id": mid, "name": name, "external": True, "language": spec.group,
                                   "paths": [], "top": []})
        return mid

    def lake_rows(self) -> list[dict]:
        out = []
        for mid, m in self.rows.items():
            paths = m["paths"]
            path = paths[0] if len(paths) == 1 else (posixpath.commonpath(paths) if paths else None)
            text = module_chunk(m["name"], paths, m["top"]) if paths else f"external package {m['name']}"
            vid = None if m["external"] else ids.vector_id(mid)  # an external package has no text of ours
            out.append({"id": mid, "repo": self.repo, "vector_id": vid, "name": m["name"],
                        "path": path, "external": m["external"], "language": m["language"], "text": text})
        return out


def _unique(entity_id: str, seen: set[str], line: int) -> str:
    """Same qualified name twice in a file (redefinitions): later ones get `@L<line>`."""
    if entity_id in seen:
        entity_id = f"{entity_id}@L{line}"
    seen.add(entity_id)
    return entity_id


def _entities(out: CodeExtraction, repo: str, path: str, fid: str, mid: str, facts: dict) -> list[str]:
    t, seen, def_ids = out.tables, set(), []
    for d in facts["defs"]:
        common = {"repo": repo, "name": d["name"], "qualified_name": d["qualified_name"], "file_path": path,
                  "line_start": d["line_start"], "line_end": d["line_end"], "docstring": d["docstring"]}
        if d["kind"] == "class":
            eid = _unique(ids.class_id(repo, path, d["qualified_name"]), seen, d["line_start"])
            t["Class"].append({"id": eid, "vector_id": ids.vector_id(eid), **common, "kind": d["class_kind"],
                               "text": class_chunk(path, d)})
            t["DEFINED_IN"].append(_edge(eid, fid, "Class", "File", repo))
        else:
            eid = _unique(ids.function_id(repo, path, d["qualified_name"]), seen, d["line_start"])
            t["Function"].append({"id": eid, "vector_id": ids.vector_id(eid), **common, "signature": d["signature"],
                                  "is_method": d["parent_kind"] == "class", "body_hash": d["body_hash"],
                                  "text": function_chunk(path, d)})
            t["DEFINED_IN"].append(_edge(eid, fid, "Function", "File", repo))
        def_ids.append(eid)
    return def_ids


def _bind_imports(out: CodeExtraction, mods: _Modules, f: ParsedFile, module_name: str, names: set[str]) -> Bindings:
    """IMPORTS and DEPENDS_ON rows of one file, and the names its imports bind."""
    b, repo = Bindings(), mods.repo
    known = mods.known.get(f.spec.group, {})
    for imp in f.facts["imports"]:
        for target in f.spec.resolve_import(imp, f.path, module_name, names):
            if target.internal and target.module not in known:
                out.resolution["imports_unresolved"] += 1
                continue
            mid = known[target.module] if target.internal else mods.external(f.spec, target.module)
            out.tables["IMPORTS"].append(_edge(f.file_id, mid, "File", "Module", repo))
            if mid != f.module_id:
                out.tables["DEPENDS_ON"].append(_edge(f.module_id, mid, "Module", "Module", repo))
            local = target.alias or target.symbol
            if not target.internal:
                b.external.add(local or target.module.split("/")[-1].split(".")[0])
            elif target.symbol:
                b.symbols[local] = (mid, target.symbol)
            elif local:
                b.aliases[local] = mid
            else:
                b.wildcards.append(mid)
    return b


def _dedupe(rows: list[dict]) -> list[dict]:
    seen, out = set(), []
    for r in rows:
        key = (r["src"], r["dst"])
        if key not in seen:
            seen.add(key)
            out.append(r)
    return sorted(out, key=lambda r: (r["src"], r["dst"]))


def extract_code(
    repo: GitRepo, repo_key: str, rev: str = "HEAD", max_file_bytes: int = MAX_FILE_BYTES, workers: int | None = None
) -> CodeExtraction:
    """Every file at `rev` as a File row; files in a supported language parsed into entities and edges.

    `workers` processes parse in parallel (default: one per core) when there is enough source.
    """
    out = CodeExtraction()
    entries: list[tuple[TreeEntry, LanguageSpec]] = []
    go_mods: dict[str, str] = {}
    sources: list[bytes] = []
    with repo.blobs() as blobs:
        for entry in repo.tree(rev):
            if not is_safe_path(entry.path):
                out.skipped["unsafe_path"] += 1
                continue
            spec = language_for(entry.path)
            row = {"id": ids.file_id(repo_key, entry.path), "repo": repo_key, "path": entry.path,
                   "language": spec.name if spec else None, "size": entry.size, "hash": entry.blob, "skip_reason": None}
            out.tables["File"].append(row)
            if posixpath.basename(entry.path) == "go.mod" and entry.size < 100_000:
                if (mod := go_module_path(blobs.read(entry.blob))) is not None:
                    go_mods[posixpath.dirname(entry.path)] = mod
            if spec is None:
                continue
            reason = skip_reason(entry.path, entry.size, None, max_file_bytes)
            src = blobs.read(entry.blob) if reason is None else b""
            reason = reason or skip_reason(entry.path, entry.size, src, max_file_bytes)
            if reason:
                row["skip_reason"] = reason
                out.skipped[reason] += 1
                continue
            entries.append((entry, spec))
            sources.append(src)
    total = sum(map(len, sources))
    out.workers = (workers or os.cpu_count() or 1) if total >= PARALLEL_MIN_BYTES else (workers or 1)
    out.workers = min(out.workers, max(1, len(sources)))
    facts_all = list(parse_many([(s.name, src) for (_, s), src in zip(entries, sources)], out.workers))
    del sources
    ctx, mods, parsed, names = RepoContext(go_mods), _Modules(repo_key), [], {}
    for (entry, spec), facts in zip(entries, facts_all):
        out.files_parsed += 1
        out.bytes_parsed += entry.size
        out.syntax_error_files += int(facts["had_error"])
        out.languages[spec.name] += 1
        name = spec.module_name(entry.path, facts["module"], ctx)
        fid = ids.file_id(repo_key, entry.path)
        mid = mods.internal(spec, name, entry.path)
        mods.rows[mid]["top"].extend(d["name"] for d in facts["defs"] if d["parent_kind"] is None)
        out.tables["BELONGS_TO"].append(_edge(fid, mid, "File", "Module", repo_key))
        def_ids = _entities(out, repo_key, entry.path, fid, mid, facts)
        parsed.append(ParsedFile(entry.path, spec, fid, mid, facts, def_ids))
        names[entry.path] = name
    known = {group: set(by_name) for group, by_name in mods.known.items()}
    bindings = {f.path: _bind_imports(out, mods, f, names[f.path], known.get(f.spec.group, set())) for f in parsed}
    resolver = Resolver(repo_key, parsed, bindings, mods.known)
    resolver.resolve_bases()
    resolver.resolve_calls()
    out.resolution.update(resolver.stats)
    t = out.tables
    t["HAS_METHOD"] = resolver.rows("HAS_METHOD", "Class", "Function")
    t["EXTENDS"] = resolver.rows("EXTENDS", "Class", "Class")
    t["IMPLEMENTS"] = resolver.rows("IMPLEMENTS", "Class", "Class")
    t["CALLS"] = resolver.rows("CALLS", "Function", "Function")
    t["IMPORTS"], t["DEPENDS_ON"] = _dedupe(t["IMPORTS"]), _dedupe(t["DEPENDS_ON"])
    t["Module"] = mods.lake_rows()
    out.module_ids = set(mods.rows)
    return out
