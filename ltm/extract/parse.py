"""One file through its grammar and query file: definitions, imports, calls and base types.

Capture names are the contract between the `.scm` files and this module (see queries/python.scm):
`@class`, `@function` (with `.name`, `.doc`, `.owner`, `.self`), `@scope` (a namespace that
qualifies names), `@impl` (a block whose functions are methods of `@impl.type`), `@import`
(`.module`, `.name`, `.alias`, `.kind`), `@call` (`.name`, `.receiver`, `.new`), `@extends`,
`@implements`, `@base` and `@module.name`. The output is plain data, so it crosses processes.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from tree_sitter import Node, Parser, QueryCursor

from ltm.extract.languages import LanguageSpec, ts_language, ts_query

MAX_TEXT_CHARS = 2_000
_DEF_KINDS = ("class", "function")
_BASE_CAPTURES = ("extends", "implements", "base")
_XML_TAGS = re.compile(r"</?(summary|remarks|para)>")  # C# XML doc comments
_CLASS_KINDS = ("interface", "trait", "struct", "enum", "union", "record")


def _text(node: Node | None) -> str | None:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else None


def _first(caps: dict[str, list[Node]], name: str) -> Node | None:
    nodes = caps.get(name)
    return nodes[0] if nodes else None


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


def _leading_comment(lines: list[bytes], line: int, spec: LanguageSpec) -> str | None:
    """The comment block directly above a definition (attributes and decorators between are skipped)."""
    if not spec.comment_prefixes:
        return None
    out: list[str] = []
    i, in_block = line - 1, False
    while i >= 0:
        s = lines[i].decode("utf-8", errors="replace").strip()
        if in_block or s.endswith("*/"):
            out.append(s)
            in_block = "/*" not in s
        elif s.startswith(spec.comment_prefixes) or (out and s.startswith("*")):
            out.append(s)
        elif s.startswith(spec.attribute_prefixes) and not out:
            pass
        else:
            break
        i -= 1
    cleaned = []
    for s in reversed(out):
        for marker in ("/**", "/*", "*/", "///", "//!", "//", "#"):
            s = s.replace(marker, "", 1) if s.startswith(marker) or marker == "*/" else s
        cleaned.append(s.lstrip("*").strip())
    text = _XML_TAGS.sub("", "\n".join(c for c in cleaned if c)).strip()
    return text or None


def _signature(node: Node, src: bytes) -> str:
    body = node.child_by_field_name("body")
    if body is None and (value := node.child_by_field_name("value")) is not None:
        body = value.child_by_field_name("body")
    if body is None or body.start_byte <= node.start_byte:
        end = src.find(b"\n", node.start_byte, node.end_byte)
        end = node.end_byte if end == -1 else end
    else:
        end = body.start_byte
    sig = src[node.start_byte : end].decode("utf-8", errors="replace").strip().rstrip("{:").strip()
    return sig[:300]


def _class_kind(node: Node) -> str:
    t = node.type if node.type != "type_spec" else (node.child_by_field_name("type") or node).type
    return next((k for k in _CLASS_KINDS if k in t), "class")


def _split_name(raw: str) -> tuple[str | None, str]:
    """`A::f` (C++ out-of-class definitions, Ruby `A::B`) -> owner `A`, name `f`."""
    if "::" in raw:
        owner, _, name = raw.rpartition("::")
        return owner.rpartition("::")[2] or None, name
    return None, raw


def _outline(node: Node, src: bytes, members: list[dict]) -> str:
    """A class's text with the bodies of its direct methods replaced by their signatures."""
    parts, pos = [], node.start_byte
    for m in members:
        n = m["node"]
        parts.append(src[pos : n.start_byte].decode("utf-8", errors="replace"))
        parts.append(m["signature"] + " ...")
        pos = n.end_byte
    parts.append(src[pos : node.end_byte].decode("utf-8", errors="replace"))
    return "".join(parts)


def parse_source(spec: LanguageSpec, src: bytes) -> dict[str, Any]:
    """Everything the graph needs from one file, as plain data (no tree-sitter objects).

    Keys: `defs` (as `parse_definitions`), `had_error`, `module` (a declared package or
    namespace, or None), `imports` (module, name, alias, kind, line), `calls` (name, receiver,
    new, caller: index into defs or None, line), `bases` (owner: index into defs, or
    owner_name for an impl block; name; relation extends/implements/base).
    """
    tree = Parser(ts_language(spec.name)).parse(src)
    found: dict[int, dict] = {}
    scopes: dict[int, tuple[str, str]] = {}  # node id -> (kind scope|impl, name)
    imports, raw_calls, raw_bases, declared = [], [], [], None
    for _, caps in QueryCursor(ts_query(spec.name)).matches(tree.root_node):
        for kind in _DEF_KINDS:
            node = _first(caps, kind)
            if node is None:
                continue
            raw = _text(_first(caps, f"{kind}.name"))
            if raw:
                owner, name = _split_name(raw)
                owner = _text(_first(caps, f"{kind}.owner")) or owner
                doc = _first(caps, f"{kind}.doc")
                found[node.id] = {
                    "kind": kind, "node": node, "name": name, "owner": owner,
                    "self": _text(_first(caps, f"{kind}.self")),
                    "doc": _strip_docstring(_text(doc)) if doc is not None else None,
                }
        if (node := _first(caps, "scope")) is not None and (name := _text(_first(caps, "scope.name"))):
            scopes[node.id] = ("scope", _split_name(name)[1])
        if (node := _first(caps, "impl")) is not None and (name := _text(_first(caps, "impl.type"))):
            scopes[node.id] = ("impl", name)
        if (node := _first(caps, "import")) is not None and (mod := _text(_first(caps, "import.module"))):
            imports.append({
                "module": mod, "name": _text(_first(caps, "import.name")),
                "alias": _text(_first(caps, "import.alias")), "kind": _text(_first(caps, "import.kind")),
                "line": node.start_point[0] + 1,
            })
        if (node := _first(caps, "call")) is not None:
            new = _first(caps, "call.new")
            name = _text(new if new is not None else _first(caps, "call.name"))
            if name:
                raw_calls.append((node, name, _text(_first(caps, "call.receiver")), new is not None))
        for rel in _BASE_CAPTURES:
            if (node := _first(caps, rel)) is not None:
                raw_bases.append((node, rel))
        if declared is None and (node := _first(caps, "module.name")) is not None:
            declared = _text(node)

    def enclosing(node: Node) -> Node | None:
        p = node.parent
        while p is not None and p.id not in found and p.id not in scopes:
            p = p.parent
        return p

    lines = src.split(b"\n") if spec.comment_prefixes else []
    ordered = sorted(found.values(), key=lambda d: d["node"].start_byte)
    index = {d["node"].id: i for i, d in enumerate(ordered)}
    defs: list[dict] = []
    for d in ordered:
        node = d["node"]
        chain, parent_kind, impl_owner = [], None, None
        p = enclosing(node)
        parent_id = p.id if p is not None else None
        while p is not None:
            if p.id in found:
                chain.append(found[p.id]["name"])
                parent_kind = parent_kind or found[p.id]["kind"]
            else:
                kind, name = scopes[p.id]
                chain.append(name)
                if kind == "impl" and parent_kind is None:
                    parent_kind, impl_owner = "class", name
            p = enclosing(p)
        if d["owner"] and parent_kind is None:  # a Go receiver or a C++ `A::f` outside its class
            chain, parent_kind = [d["owner"]], "class"
        text = src[node.start_byte : node.end_byte]
        defs.append({
            "kind": d["kind"],
            "name": d["name"],
            "qualified_name": ".".join([*reversed(chain), d["name"]]),
            "parent_kind": parent_kind,
            "parent_qualified": ".".join(reversed(chain)) or None,
            "line_start": node.start_point[0] + 1,
            "line_end": node.end_point[0] + 1,
            "signature": _signature(node, src),
            "docstring": d["doc"] if d["doc"] is not None else _leading_comment(lines, node.start_point[0], spec),
            "text": text[: MAX_TEXT_CHARS * 2].decode("utf-8", errors="replace")[:MAX_TEXT_CHARS],
            "body_hash": hashlib.sha1(text).hexdigest(),
            "class_kind": _class_kind(node) if d["kind"] == "class" else None,
            "self_name": d["self"],
            "impl_owner": impl_owner,
            "node": node,
            "parent_id": parent_id,
        })
    for i, d in enumerate(defs):
        if d["kind"] == "class":
            members = [m for m in defs[i + 1 :] if m["kind"] == "function" and m["parent_id"] == d["node"].id]
            d["outline"] = _outline(d["node"], src, members)
    calls = []
    for node, name, receiver, new in raw_calls:
        p = node.parent
        while p is not None and p.id not in found:
            p = p.parent
        caller = index[p.id] if p is not None else None
        if caller is not None and defs[caller]["kind"] != "function":
            caller = None
        calls.append({"name": name, "receiver": receiver, "new": new, "caller": caller, "line": node.start_point[0] + 1})
    bases = []
    for node, rel in raw_bases:
        p = enclosing(node)
        if p is None:
            continue
        if p.id in found:
            bases.append({"owner": index[p.id], "owner_name": None, "name": _text(node), "relation": rel})
        else:
            bases.append({"owner": None, "owner_name": scopes[p.id][1], "name": _text(node), "relation": rel})
    for d in defs:
        del d["node"], d["parent_id"]
    return {"defs": defs, "had_error": tree.root_node.has_error, "module": declared,
            "imports": imports, "calls": calls, "bases": bases}


def parse_definitions(spec: LanguageSpec, src: bytes) -> tuple[list[dict], bool]:
    """Definitions in one file: kind, name, qualified name, parent kind, lines, signature, doc, text.

    Returns the definitions in source order and whether the file had syntax errors. Each also has
    `body_hash` (sha1 of its whole source text), `class_kind` and, for classes, `outline`.
    """
    facts = parse_source(spec, src)
    return facts["defs"], facts["had_error"]
