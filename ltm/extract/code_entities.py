"""Code entities at one revision: File, Module, Class and Function rows and their edges.

Files are listed with one `git ls-tree`, read with one `git cat-file --batch`, and parsed with
the language's tree-sitter grammar and query file. A file with syntax errors yields what parses;
binary and oversized files are skipped with the reason counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tree_sitter import Node, Parser, QueryCursor

from ltm import ids
from ltm.extract.gitrepo import GitRepo, TreeEntry
from ltm.extract.languages import LanguageSpec, language_for, ts_language, ts_query

MAX_FILE_BYTES = 1_000_000
MAX_TEXT_CHARS = 2_000
_DEF_KINDS = ("class", "function")


@dataclass
class CodeExtraction:
    """Rows per lake table and counts of what was skipped and why."""

    tables: dict[str, list[dict]] = field(default_factory=lambda: {
        t: [] for t in ("File", "Module", "Class", "Function", "DEFINED_IN", "BELONGS_TO", "HAS_METHOD")
    })
    skipped: Counter = field(default_factory=Counter)
    files_parsed: int = 0
    bytes_parsed: int = 0
    syntax_error_files: int = 0
    module_ids: set[str] = field(default_factory=set)


def _edge(table: str, src: str, dst: str, src_label: str, dst_label: str, repo: str) -> dict:
    return {"src": src, "dst": dst, "src_label": src_label, "dst_label": dst_label, "repo": repo}


def _text(node: Node | None) -> str | None:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else None


def _strip_docstring(raw: str | None) -> str | None:
    if raw is None:
        return None
    s = raw.strip()
    for q in ('"""', "'''", '"', "'"):
        if len(s) >= 2 * len(q) and s.endswith(q):
            start = s.find(q)
            if start != -1 and start <= 3:  # string prefixes such as r or u
                return s[start + len(q) : -len(q)].strip()
    return s


def _signature(node: Node, src: bytes) -> str:
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    return src[node.start_byte : end].decode("utf-8", errors="replace").strip().rstrip(":").strip()


def parse_definitions(spec: LanguageSpec, src: bytes) -> tuple[list[dict], bool]:
    """Definitions in one file: kind, name, qualified name, parent kind, lines, signature, doc, text.

    Returns the definitions in source order and whether the file had syntax errors.
    """
    tree = Parser(ts_language(spec.name)).parse(src)
    found: dict[int, dict] = {}
    for _, caps in QueryCursor(ts_query(spec.name)).matches(tree.root_node):
        for kind in _DEF_KINDS:
            if kind in caps:
                node = caps[kind][0]
                name = _text(caps.get(f"{kind}.name", [None])[0])
                if name:
                    doc = caps.get(f"{kind}.doc")
                    found[node.id] = {"kind": kind, "node": node, "name": name, "doc": _strip_docstring(_text(doc[0]) if doc else None)}
    defs = []
    for d in sorted(found.values(), key=lambda d: d["node"].start_byte):
        chain, parent_kind = [], None
        p = d["node"].parent
        while p is not None:
            if p.id in found:
                chain.append(found[p.id]["name"])
                parent_kind = parent_kind or found[p.id]["kind"]
            p = p.parent
        node = d["node"]
        text = src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
        defs.append({
            "kind": d["kind"],
            "name": d["name"],
            "qualified_name": ".".join([*reversed(chain), d["name"]]),
            "parent_kind": parent_kind,
            "parent_qualified": ".".join(reversed(chain)) or None,
            "line_start": node.start_point[0] + 1,
            "line_end": node.end_point[0] + 1,
            "signature": _signature(node, src),
            "docstring": d["doc"],
            "text": text[:MAX_TEXT_CHARS],
        })
    return defs, tree.root_node.has_error


def _unique(entity_id: str, seen: set[str], line: int) -> str:
    """Same qualified name twice in a file (redefinitions): later ones get `@L<line>`."""
    if entity_id in seen:
        entity_id = f"{entity_id}@L{line}"
    seen.add(entity_id)
    return entity_id


def _add_file(out: CodeExtraction, repo: str, entry: TreeEntry, spec: LanguageSpec, src: bytes) -> None:
    fid = ids.file_id(repo, entry.path)
    module_name = spec.module_name(entry.path)
    mid = ids.module_id(repo, module_name)
    if mid in out.module_ids:  # a.py beside a.pyi, or src/a.py beside a.py
        mid = ids.module_id(repo, f"{module_name}@{entry.path}")
    out.module_ids.add(mid)
    defs, had_error = parse_definitions(spec, src)
    out.files_parsed += 1
    out.bytes_parsed += len(src)
    out.syntax_error_files += int(had_error)
    t = out.tables
    top = ", ".join(d["name"] for d in defs if d["parent_kind"] is None)
    t["Module"].append({
        "id": mid, "repo": repo, "vector_id": ids.vector_id(mid), "name": module_name, "path": entry.path,
        "external": False, "text": f"module {module_name} ({entry.path})" + (f": {top}" if top else ""),
    })
    t["BELONGS_TO"].append(_edge("BELONGS_TO", fid, mid, "File", "Module", repo))
    seen: set[str] = set()
    owners: dict[str, str] = {}
    for d in defs:
        if d["kind"] == "class":
            eid = _unique(ids.class_id(repo, entry.path, d["qualified_name"]), seen, d["line_start"])
            owners.setdefault(d["qualified_name"], eid)
            t["Class"].append({
                "id": eid, "repo": repo, "vector_id": ids.vector_id(eid), "name": d["name"],
                "qualified_name": d["qualified_name"], "file_path": entry.path,
                "line_start": d["line_start"], "line_end": d["line_end"], "docstring": d["docstring"],
                "text": d["text"],
            })
            t["DEFINED_IN"].append(_edge("DEFINED_IN", eid, fid, "Class", "File", repo))
        else:
            eid = _unique(ids.function_id(repo, entry.path, d["qualified_name"]), seen, d["line_start"])
            is_method = d["parent_kind"] == "class"
            t["Function"].append({
                "id": eid, "repo": repo, "vector_id": ids.vector_id(eid), "name": d["name"],
                "qualified_name": d["qualified_name"], "file_path": entry.path,
                "line_start": d["line_start"], "line_end": d["line_end"], "signature": d["signature"],
                "docstring": d["docstring"], "is_method": is_method, "text": d["text"],
            })
            t["DEFINED_IN"].append(_edge("DEFINED_IN", eid, fid, "Function", "File", repo))
            if is_method and d["parent_qualified"] in owners:
                t["HAS_METHOD"].append(_edge("HAS_METHOD", owners[d["parent_qualified"]], eid, "Class", "Function", repo))


def extract_code(repo: GitRepo, repo_key: str, rev: str = "HEAD", max_file_bytes: int = MAX_FILE_BYTES) -> CodeExtraction:
    """Every file at `rev` as a File row; files in a supported language parsed into entities."""
    out = CodeExtraction()
    with repo.blobs() as blobs:
        for entry in repo.tree(rev):
            spec = language_for(entry.path)
            out.tables["File"].append({
                "id": ids.file_id(repo_key, entry.path), "repo": repo_key, "path": entry.path,
                "language": spec.name if spec else None, "size": entry.size, "hash": entry.blob,
            })
            if spec is None:
                continue
            if entry.size > max_file_bytes:
                out.skipped["too_large"] += 1
                continue
            src = blobs.read(entry.blob)
            if b"\0" in src[:8192]:
                out.skipped["binary"] += 1
                continue
            _add_file(out, repo_key, entry, spec, src)
    return out
