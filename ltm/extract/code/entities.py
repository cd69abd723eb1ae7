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
from collections import Counter
from dataclasses import dataclass, field

from ltm import ids
from ltm.extract.code.chunks import module_chunk
from ltm.extract.code.file_rows import row_pool
from ltm.extract.filters import MAX_FILE_BYTES, skip_reason
from ltm.extract.gc_pause import no_cycle_collection
from ltm.extract.gitrepo import MISSING, GitRepo, TreeEntry, is_safe_path
from ltm.extract.languages import LanguageSpec, language_for, read_as
from ltm.extract.modules import (JsPackage, RepoContext, go_module_path, js_package, php_namespaces, rust_crates,
                                 swift_targets)
from ltm.extract.code.resolve import Bindings, ParsedFile, Resolver

PARALLEL_MIN_BYTES = 1_000_000  # below this a pool costs more to start than it saves
BATCH_BYTES = 4_000_000  # at most this much source per batch: memory stays flat, workers stay busy
BATCH_MIN_BYTES = 64_000
_SHARED_MODULES = {"go", "java", "c_sharp", "c", "swift"}  # families whose files share one module
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


def _bind_imports(out: CodeExtraction, mods: _Modules, f: ParsedFile, module_name: str, names: set[str],
                  ctx: RepoContext) -> Bindings:
    """IMPORTS and DEPENDS_ON rows of one file, and the names its imports bind."""
    b, repo = Bindings(), mods.repo
    known = mods.known.get(f.spec.group, {})
    for imp in f.facts["imports"]:
        for target in f.spec.resolve_import(imp, f.path, module_name, names, ctx):
            if target.internal and target.module not in known:
                out.resolution["imports_unresolved"] += 1
                continue
            mid = known[target.module] if target.internal else mods.external(f.spec, target.module)
            out.tables["IMPORTS"].append({**_edge(f.file_id, mid, "File", "Module", repo),
                                          "names": target.symbol})
            if mid != f.module_id:
                out.tables["DEPENDS_ON"].append(_edge(f.module_id, mid, "Module", "Module", repo))
            local = target.alias or target.symbol
            if target.package and local:
                b.packaged.add(local)
            if not target.internal:
                b.external.add(local or target.module.split("/")[-1].split(".")[0])
            elif target.symbol:
                b.symbols[local] = (mid, target.symbol)
            elif local:
                b.aliases[local] = mid
            else:
                b.wildcards.append(mid)
    if f.spec.child_modules:
        _bind_child_modules(b, module_name, known)
    return b


def _bind_child_modules(b: Bindings, module_name: str, known: dict[str, str]) -> None:
    """Rust: `mod walk;` puts module `walk` in scope (`walk::scan()`), and `crate::` names the crate's root;
    what an import binds comes first."""
    crate = module_name.split("::")[0]
    if crate in known:
        b.aliases.setdefault("crate", known[crate])
    prefix = module_name + "::"
    for name, mid in known.items():
        if name.startswith(prefix) and "::" not in name[len(prefix):]:
            child = name[len(prefix):]
            if child not in b.symbols and child not in b.external:
                b.aliases.setdefault(child, mid)


def _dedupe(rows: list[dict]) -> list[dict]:
    """One row per (src, dst); an IMPORTS row's `names` joins what the file's imports of the module name."""
    seen: dict[tuple[str, str], dict] = {}
    for r in rows:
        key = (r["src"], r["dst"])
        if key not in seen:
            seen[key] = dict(r)
        elif r.get("names"):
            kept = seen[key]
            names = kept["names"].split(",") if kept.get("names") else []
            if r["names"] not in names:
                kept["names"] = ",".join([*names, r["names"]])
    return sorted(seen.values(), key=lambda r: (r["src"], r["dst"]))


def _workers(requested: int | None, total_bytes: int, files: int) -> int:
    if multiprocessing.current_process().daemon:  # e.g. a Dask worker: it may not start processes
        return 1
    n = (requested or os.cpu_count() or 1) if total_bytes >= PARALLEL_MIN_BYTES else (requested or 1)
    return max(1, min(n, files))


@no_cycle_collection()  # millions of acyclic rows: see gc_pause.py
def extract_code(
    repo: GitRepo, repo_key: str, rev: str = "HEAD", max_file_bytes: int = MAX_FILE_BYTES, workers: int | None = None
) -> CodeExtraction:
    """Every file at `rev` as a File row; files in a supported language parsed into entities and edges.

    `workers` processes parse in parallel (default: one per core) when there is enough source:
    blobs are read in one `cat-file` stream and handed to the workers in batches while the rest
    are still being read; each worker returns finished rows (see `file_rows.py`).
    """
    out = CodeExtraction()
    listed: list[tuple[TreeEntry, LanguageSpec | None, str | None]] = []
    for entry in repo.tree(rev):
        if not is_safe_path(entry.path):
            out.skipped["unsafe_path"] += 1
            continue
        spec = language_for(entry.path)
        if entry.size == MISSING:  # the repository cannot give this blob: listed, never read, counted
            reason = "missing_object" if spec or _is_manifest(entry) else None
            if not spec:
                out.skipped["missing_object"] += 1
        else:
            reason = skip_reason(entry.path, entry.size, None, max_file_bytes) if spec else None
        listed.append((entry, spec, reason))
    wanted = [(e, spec) for e, spec, reason in listed if spec is not None and reason is None]
    out.workers = _workers(workers, sum(e.size for e, _ in wanted), len(wanted))
    batch = max(BATCH_MIN_BYTES, min(BATCH_BYTES, sum(e.size for e, _ in wanted) // (out.workers * 4)))
    go_mods: dict[str, str] = {}
    crates: dict[str, str] = {}  # a Rust crate's source folder -> its name (`rust_crates`)
    js_packages: dict[str, JsPackage] = {}
    php_roots: dict[str, str] = {}  # a folder -> the PHP namespace composer.json's psr-4 maps to it
    swift_roots: dict[str, str] = {}  # a folder -> the Swift target Package.swift declares there
    parsed_entries: list[tuple[TreeEntry, LanguageSpec]] = []
    with row_pool(repo_key, out.workers, batch, sorted({s.name for _, s in wanted})) as pool:
        to_read = [e.blob for e, spec, reason in listed if reason is None and (spec is not None or _is_manifest(e))]
        with repo.blobs() as blobs:  # one stream in tree order: batches reach the workers while it runs
            contents = blobs.read_many(to_read)
            for entry, spec, reason in listed:
                row = {"id": ids.file_id(repo_key, entry.path), "repo": repo_key, "path": entry.path,
                       "language": spec.name if spec else None,
                       "size": entry.size if entry.size != MISSING else None, "hash": entry.blob,
                       "skip_reason": None}
                out.tables["File"].append(row)
                read = reason is None and (spec is not None or _is_manifest(entry))
                src = next(contents)[1] if read else b""
                if src is None:  # listed, yet the repository cannot give it now
                    src, reason = b"", "missing_object"
                if _is_go_mod(entry) and (mod := go_module_path(src)) is not None:
                    go_mods[posixpath.dirname(entry.path)] = mod
                elif _is_cargo_toml(entry):
                    crates.update(rust_crates(src, posixpath.dirname(entry.path)))
                elif _is_package_json(entry) and (pkg := js_package(src, posixpath.dirname(entry.path))) is not None:
                    js_packages.setdefault(*pkg)  # two of one name (a fixture's copy): the first in tree order
                elif _is_composer_json(entry):
                    for folder, prefix in php_namespaces(src, posixpath.dirname(entry.path)).items():
                        php_roots.setdefault(folder, prefix)
                elif _is_package_swift(entry):
                    for folder, target in swift_targets(src, posixpath.dirname(entry.path)).items():
                        swift_roots.setdefault(folder, target)
                if spec is None:
                    continue
                reason = reason or skip_reason(entry.path, entry.size, src, max_file_bytes)
                if reason:
                    row["skip_reason"] = reason
                    out.skipped[reason] += 1
                    continue
                spec = read_as(spec, src)
                row["language"] = spec.name
                pool.add(entry.path, spec.name, src)
                parsed_entries.append((entry, spec))
            for _ in contents:  # ends the stream (and its feeding thread)
                pass
        ctx, mods, parsed, names = RepoContext(go_mods, crates, js_packages, php_roots, swift_targets=swift_roots), _Modules(repo_key), [], {}
        t = out.tables
        for (entry, spec), res in zip(parsed_entries, pool.results()):  # each batch as it comes back
            facts = res["facts"]
            out.files_parsed += 1
            out.bytes_parsed += entry.size
            out.syntax_error_files += int(facts["had_error"])
            out.languages[spec.name] += 1
            name = spec.module_name(entry.path, facts["module"], ctx)
            fid = ids.file_id(repo_key, entry.path)
            mid = mods.internal(spec, name, entry.path)
            mods.rows[mid]["top"].extend(res["top"])
            t["BELONGS_TO"].append(_edge(fid, mid, "File", "Module", repo_key))
            t["Class"].extend(res["Class"])
            t["Function"].extend(res["Function"])
            t["DEFINED_IN"].extend(res["DEFINED_IN"])
            parsed.append(ParsedFile(entry.path, spec, fid, mid, facts, res["def_ids"]))
            names[entry.path] = name
    known = {group: set(by_name) for group, by_name in mods.known.items()}
    ctx.paths = names  # PHP's `require 'x.php'` names a file: its module
    for m in mods.rows.values():  # PHP's `use function A\f;` names the module of namespace A that defines f
        ctx.tops.setdefault(m["name"], set()).update(m["top"])
    bindings = {f.path: _bind_imports(out, mods, f, names[f.path], known.get(f.spec.group, set()), ctx) for f in parsed}
    resolver = Resolver(repo_key, parsed, bindings, mods.known)
    resolver.resolve_bases()
    resolver.resolve_calls()
    out.resolution.update(resolver.stats)
    t["HAS_METHOD"] = resolver.rows("HAS_METHOD", "Class", "Function")
    t["EXTENDS"] = resolver.rows("EXTENDS", "Class", "Class")
    t["IMPLEMENTS"] = resolver.rows("IMPLEMENTS", "Class", "Class")
    t["CALLS"] = resolver.rows("CALLS", "Function", "Function")
    t["IMPORTS"], t["DEPENDS_ON"] = _dedupe(t["IMPORTS"]), _dedupe(t["DEPENDS_ON"])
    t["Module"] = mods.lake_rows()
    out.module_ids = set(mods.rows)
    return out


def _is_go_mod(entry: TreeEntry) -> bool:
    return posixpath.basename(entry.path) == "go.mod" and entry.size < 100_000


def _is_cargo_toml(entry: TreeEntry) -> bool:
    return posixpath.basename(entry.path) == "Cargo.toml" and entry.size < 100_000


def _is_package_json(entry: TreeEntry) -> bool:
    return posixpath.basename(entry.path) == "package.json" and entry.size < 1_000_000 and (
        "node_modules/" not in entry.path)


def _is_package_swift(entry: TreeEntry) -> bool:
    return posixpath.basename(entry.path) == "Package.swift" and entry.size < 1_000_000 and ".build/" not in entry.path


def _is_composer_json(entry: TreeEntry) -> bool:
    return posixpath.basename(entry.path) == "composer.json" and entry.size < 1_000_000 and "vendor/" not in entry.path


def _is_manifest(entry: TreeEntry) -> bool:
    """A file module naming or import resolution reads (go.mod, Cargo.toml, package.json, composer.json),
    though it is no source."""
    return _is_go_mod(entry) or _is_cargo_toml(entry) or _is_package_json(entry) or _is_composer_json(entry)
