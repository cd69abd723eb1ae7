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


def _outline(node: Node, src: bytes, members: list[tuple[Node, str]]) -> str:
    """A class's text with the bodies of its direct methods replaced by their signatures."""
    parts, pos = [], node.start_byte
    for n, signature in members:
        parts.append(src[pos : n.start_byte].decode("utf-8", errors="replace"))
        parts.append(signature + " ...")
        pos = n.end_byte
    parts.append(src[pos : node.end_byte].decode("utf-8", errors="replace"))
    return "".join(parts)


_MAX_RECEIVER = 80
_ROLES = ("call", "function", "class", "import", "scope", "impl", "extends", "implements", "base", "module.name")


def _innermost(points: list[int], spans: list[tuple[int, int, int]]) -> list[int | None]:
    """For each byte offset in `points` (ascending), the key of the innermost span holding it.

    `spans` are (start, end, key), sorted by start then by end descending, and nest like a tree.
    One sweep, no parent walks: this is the hot path for every call site.
    """
    out: list[int | None] = []
    stack: list[tuple[int, int, int]] = []
    j = 0
    for p in points:
        while j < len(spans) and spans[j][0] <= p:
            while stack and stack[-1][1] <= spans[j][0]:
                stack.pop()
            stack.append(spans[j])
            j += 1
        while stack and stack[-1][1] <= p:
            stack.pop()
        out.append(stack[-1][2] if stack else None)
    return out


def parse_source(spec: LanguageSpec, src: bytes) -> dict[str, Any]:
    """Everything the graph needs from one file, as plain data (no tree-sitter objects).

    Keys: `defs` (as `parse_definitions`), `had_error`, `module` (a declared package or
    namespace, or None), `imports` (module, name, alias, kind, line), `calls` (name, receiver,
    new, caller: index into defs or None, line), `bases` (owner: index into defs, or
    owner_name for an impl block; name; relation extends/implements/base).
    """
    tree = Parser(ts_language(spec.name)).parse(src)
    found: list[dict] = []
    scopes: list[tuple[Node, str, str]] = []  # (node, scope|impl, name)
    imports, raw_calls, raw_bases, declared = [], [], [], None
    roles: dict[int, str] = {}
    for pattern, caps in QueryCursor(ts_query(spec.name)).matches(tree.root_node):
        role = roles.get(pattern)
        if role is None:
            role = roles[pattern] = next(r for r in _ROLES if r in caps)
        if role == "call":
            new = caps.get("call.new")
            name_node = new[0] if new else caps.get("call.name", (None,))[0]
            if name_node is not None:
                recv = caps.get("call.receiver")
                if recv:  # only a short receiver can name a module, a class or self: skip long chains
                    r = recv[0]
                    recv = r.text.decode("utf-8", "replace") if r.end_byte - r.start_byte <= _MAX_RECEIVER else "(...)"
                node = caps["call"][0]
                raw_calls.append((node.start_byte, name_node.text.decode("utf-8", "replace"), recv or None,
                                  bool(new), node.start_point[0] + 1))
        elif role in _DEF_KINDS:
            raw = _text(_first(caps, f"{role}.name"))
            if raw:
                owner, name = _split_name(raw)
                owner = _text(_first(caps, f"{role}.owner")) or owner
                doc = _first(caps, f"{role}.doc")
                found.append({
                    "kind": role, "node": caps[role][0], "name": name, "owner": owner,
                    "self": _text(_first(caps, f"{role}.self")),
                    "doc": _strip_docstring(_text(doc)) if doc is not None else None,
                })
        elif role == "import":
            if mod := _text(_first(caps, "import.module")):
                imports.append({
                    "module": mod, "name": _text(_first(caps, "import.name")),
                    "alias": _text(_first(caps, "import.alias")), "kind": _text(_first(caps, "import.kind")),
                    "line": caps["import"][0].start_point[0] + 1,
                })
        elif role in ("scope", "impl"):
            if name := _text(_first(caps, "scope.name" if role == "scope" else "impl.type")):
                scopes.append((caps[role][0], role, _split_name(name)[1]))
        elif role == "module.name":
            declared = declared or _text(caps[role][0])
        else:
            raw_bases.append((caps[role][0], role))

    # Definitions and scopes as nested spans: keys >= 0 are defs (in source order), < 0 scopes.
    found.sort(key=lambda d: (d["node"].start_byte, -d["node"].end_byte))
    spans = sorted(
        [(d["node"].start_byte, d["node"].end_byte, i) for i, d in enumerate(found)]
        + [(n.start_byte, n.end_byte, -1 - k) for k, (n, _, _) in enumerate(scopes)],
        key=lambda t: (t[0], -t[1]),
    )
    parents = _innermost_parents(spans)
    lines = src.split(b"\n") if spec.comment_prefixes else []
    defs: list[dict] = []
    for i, d in enumerate(found):
        node = d["node"]
        chain, parent_kind, impl_owner = [], None, None
        p = parents.get(i)
        while p is not None:
            if p >= 0:
                chain.append(found[p]["name"])
                parent_kind = parent_kind or found[p]["kind"]
            else:
                _, kind, name = scopes[-1 - p]
                chain.append(name)
                if kind == "impl" and parent_kind is None:
                    parent_kind, impl_owner = "class", name
            p = parents.get(p)
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
        })
    members: dict[int, list[int]] = {}
    for j, parent in parents.items():
        if j >= 0 and parent >= 0 and found[j]["kind"] == "function":
            members.setdefault(parent, []).append(j)
    for i, d in enumerate(defs):
        if d["kind"] == "class":
            own = sorted(members.get(i, []))
            d["outline"] = _outline(found[i]["node"], src, [(found[j]["node"], defs[j]["signature"]) for j in own])
    raw_calls.sort(key=lambda c: c[0])
    fn_spans = [(s, e, k) for s, e, k in spans if k >= 0 and found[k]["kind"] == "function"]
    callers = _innermost([c[0] for c in raw_calls], fn_spans)
    calls = [{"name": name, "receiver": recv, "new": new, "caller": caller, "line": line}
             for (_, name, recv, new, line), caller in zip(raw_calls, callers)]
    raw_bases.sort(key=lambda b: b[0].start_byte)
    owners = _innermost([b[0].start_byte for b in raw_bases], spans)
    bases = []
    for (node, rel), owner in zip(raw_bases, owners):
        if owner is None:
            continue
        bases.append({"owner": owner if owner >= 0 else None,
                      "owner_name": scopes[-1 - owner][2] if owner < 0 else None,
                      "name": _text(node), "relation": rel})
    return {"defs": defs, "had_error": tree.root_node.has_error, "module": declared,
            "imports": imports, "calls": calls, "bases": bases}


def _innermost_parents(spans: list[tuple[int, int, int]]) -> dict[int, int]:
    """key -> key of the innermost span strictly enclosing it (spans sorted by start, end desc)."""
    parents: dict[int, int] = {}
    stack: list[tuple[int, int, int]] = []
    for span in spans:
        while stack and stack[-1][1] <= span[0]:
            stack.pop()
        if stack:
            parents[span[2]] = stack[-1][2]
        stack.append(span)
    return parents


def parse_definitions(spec: LanguageSpec, src: bytes) -> tuple[list[dict], bool]:
    """Definitions in one file: kind, name, qualified name, parent kind, lines, signature, doc, text.

    Returns the definitions in source order and whether the file had syntax errors. Each also has
    `body_hash` (sha1 of its whole source text), `class_kind` and, for classes, `outline`.
    """
    facts = parse_source(spec, src)
    return facts["defs"], facts["had_error"]
