"""One file through its grammar and query file: definitions, imports, calls and base types.

Capture names are the contract between the `.scm` files and this module (see queries/python.scm):
`@class`, `@function` (with `.name`, `.doc`, `.owner`, `.self`), `@scope` (a namespace that
qualifies names), `@impl` (a block whose functions are methods of `@impl.type`), `@import`
(`.module`, `.name`, `.alias`, `.kind`), `@call.name` or `@call.new` (one per call site) with `@call.receiver`,
`@call.read` (a bare name read as a value, Ruby's `settings`: a call of self's method unless `@local` binds it),
`@call.setter` (the name of a call an assignment writes to, Ruby's `x.status = 1`: a call of `status=`),
`@call.path` (the receiver is a path: `regex::escape(s)`), `@call.args` (arguments that must follow the name
directly: a Rust macro's tokens),
`@ref.name` with `@ref.receiver` (a function named as an argument: `partial(f)`, `Thread(target=self.run)`),
`@attr.name` with `@attr.object` and `@attr.type` (an attribute and the class it holds), `@var.name` with
`@var.type` (and `@var.member`, the method called on it when the call is written in parts), `@local` (a
name a function binds itself), `@extends`,
`@implements`, `@base`, `@requires` (a method an interface requires: Go's are implemented without saying
so) and `@module.name`. The output is plain data, so it crosses processes.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Any

from tree_sitter import Node, Parser, QueryCursor

from ltm.extract.conditionals import error_size, first_branches
from ltm.extract.labels import call_labels, parameters
from ltm.extract.languages import LanguageSpec, query_text, ts_language, ts_query
from ltm.extract.overloads import overload_key

MAX_TEXT_CHARS = 2_000
_DEF_KINDS = ("class", "function")
_BASE_CAPTURES = ("extends", "implements", "base", "requires")
_XML_TAGS = re.compile(r"</?(summary|remarks|para)>")  # C# XML doc comments
_OPENER = re.compile(r"^(?:/\*\*|/\*|///|//!|//|#)")  # a comment line's opening marker
_CLASS_KINDS = ("interface", "trait", "struct", "enum", "union", "record", "module")  # Ruby's module


def _text(node: Node | None) -> str | None:
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text is not None else None


def _bare(row: dict) -> bool:
    return row["name"] is None and row["alias"] is None and row["kind"] is None


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


def _leading_comment(src: bytes, start: int, spec: LanguageSpec) -> str | None:
    """The comment block directly above a definition (attributes and decorators between are skipped).

    Reads backwards from the definition's first byte, line by line, on bytes: only the lines of
    the comment itself are decoded, never the whole file.
    """
    if not spec.comment_prefixes:
        return None
    prefixes, attributes = _as_bytes(spec.comment_prefixes), _as_bytes(spec.attribute_prefixes)
    out: list[bytes] = []
    in_block = False
    end = src.rfind(b"\n", 0, start)  # the newline that ends the line above the definition
    end, gap = _past_blank_lines(src, end)  # across blank lines only a /** */ block counts (below)
    while end >= 0:
        begin = src.rfind(b"\n", 0, end) + 1
        s = src[begin:end].strip()
        if in_block or s.endswith(b"*/"):
            out.append(s)
            in_block = b"/*" not in s
        elif s.startswith(prefixes) or (out and s.startswith(b"*")):
            out.append(s)
        elif not (s.startswith(attributes) and not out):
            break
        end = begin - 1
    if not out or (gap and not out[-1].startswith(b"/**")):  # JSDoc's layout, not `//` lines nor a licence's /*!
        return None
    cleaned = []
    for s in b"\n".join(reversed(out)).decode("utf-8", errors="replace").split("\n"):
        s = s.strip()
        if s[:1] != "*" or "*/" in s:  # not a middle line of a /** */ block: drop the comment markers
            s = _OPENER.sub("", s).replace("*/", "", 1)
        if s := s.lstrip("*").strip():
            cleaned.append(s)
    text = _XML_TAGS.sub("", "\n".join(cleaned)).strip()
    return text or None


def _past_blank_lines(src: bytes, end: int, most: int = 2) -> tuple[int, bool]:
    """The end of the first line above `end` that is not blank, and whether blank lines were passed;
    `end` itself when there are more than `most` of them (then nothing above is the definition's)."""
    at = end
    for skipped in range(most + 1):
        if at < 0:
            return end, False
        begin = src.rfind(b"\n", 0, at) + 1
        if src[begin:at].strip():
            return at, skipped > 0
        at = begin - 1
    return end, False


@cache
def _as_bytes(prefixes: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(p.encode() for p in prefixes)


def _signature(node: Node, src: bytes) -> tuple[str, bool]:
    """The definition's text up to its body, and whether it is a stub (no body of its own)."""
    body = node.child_by_field_name("body")
    if body is None and (value := node.child_by_field_name("value")) is not None:
        body = value.child_by_field_name("body")
    if body is None and node.type in _KOTLIN_FUNCTIONS:  # Kotlin's grammar names no body field
        body = next((c for c in node.named_children if c.type in ("function_body", "block")), None)
    if body is None or body.start_byte <= node.start_byte:
        end = src.find(b"\n", node.start_byte, node.end_byte)
        end = node.end_byte if end == -1 else end
    else:
        end = body.start_byte
    sig = src[node.start_byte : end].decode("utf-8", errors="replace").strip().rstrip("{:").strip()
    return sig[:300], _is_stub(node.type, body)


_STUB_STATEMENTS = {"pass_statement", "ellipsis", "raise_statement"}


def _is_stub(node_type: str, body: Node | None) -> bool:
    """An abstract, interface or placeholder method: subclasses supply the code a call runs.

    Java, C# and Kotlin methods without a body, C++'s pure virtual methods, a Rust trait's required methods; Python functions whose body is only a docstring and
    `...`, `pass` or a `raise` (NotImplementedError, by convention).
    """
    if node_type in ("method_declaration", "field_declaration", "function_signature_item", "function_declaration",
                     "protocol_function_declaration"):
        # C++'s only function field: `virtual f() = 0;`; a Rust trait's `fn area(&self);`; a Kotlin interface's
        # `fun f()`; a Swift protocol's `func f()`
        return body is None
    if node_type != "function_definition" or body is None or body.type != "block" or body.named_child_count > 2:
        return False
    stmts = body.named_children
    if len(stmts) == 2 and not (stmts[0].type == "expression_statement" and stmts[0].named_child_count == 1
                                and stmts[0].named_children[0].type == "string"):
        return False
    last = stmts[-1] if stmts else None
    if last is not None and last.type == "expression_statement" and last.named_child_count == 1:
        last = last.named_children[0]
    return last is not None and last.type in _STUB_STATEMENTS


_KOTLIN_FUNCTIONS = ("function_declaration", "secondary_constructor", "anonymous_initializer")


_SWIFT_KINDS = {"protocol_declaration": "interface"}


def _class_kind(node: Node) -> str:
    if node.type in _SWIFT_KINDS:
        return _SWIFT_KINDS[node.type]
    if node.type == "object_declaration":  # Kotlin's `object Registry`: a class of one instance
        return "object"
    if node.type == "class_declaration" and (kind := node.child_by_field_name("declaration_kind")) is not None:
        return kind.type  # Swift's `struct`, `enum`, `actor` (one node type for all of them)
    if node.type == "class_declaration" and (kind := _kotlin_class_kind(node)):
        return kind
    t = node.type if node.type != "type_spec" else (node.child_by_field_name("type") or node).type
    return next((k for k in _CLASS_KINDS if k in t), "class")


def _kotlin_class_kind(node: Node) -> str | None:
    """Kotlin writes every class kind as a `class_declaration`: `interface I`, `enum class E` say which
    (`fun interface`, `data class`, `sealed class` are interfaces and classes)."""
    for child in node.children:
        if child.type == "interface":
            return "interface"
        if child.type == "modifiers" and any(m.type == "class_modifier" and m.text == b"enum" for m in child.children):
            return "enum"
        if child.type in ("class", "identifier"):
            break
    return None


_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*>")


def _split_name(raw: str) -> tuple[str | None, str]:
    """`A::f` (C++ out-of-class definitions, Ruby `A::B`) -> owner `A`, name `f`; `A::B::f` -> owner `A.B`;
    a template's `SkipList<Key, Comparator>::Insert` -> owner `SkipList`."""
    if "::" in raw:
        owner, _, name = raw.rpartition("::")
        while "<" in owner and owner != (plain := _TEMPLATE_ARGUMENTS.sub("", owner)):
            owner = plain
        return owner.strip(":").replace("::", ".") or None, name
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
_ROLES = ("function", "class", "import", "scope", "impl", "extends", "implements", "base", "requires", "module.name",
          "local", "declares", "instance", "object")
_PARSERS: dict[str, Parser] = {}
_CALL, _CALL_RECV, _CALL_NEW, _REF, _ATTR, _VAR = "call", "call.receiver", "call.new", "ref", "attr", "var"
_READ = "call.read"  # a bare name read as a value that calls a method unless it is a local variable (Ruby)
_SETTER = "call.setter"  # `x.status = 1` calls `status=` (Ruby's attribute writer), not the reader `status`
_AWAIT = "await"
# what a call site is: a call, one whose result is awaited or handed on (where the query marks them: a
# plain CALL there runs no coroutine), a constructor call, a function passed as a value
CALL, AWAIT, NEW, REF = "call", "await", "new", "ref"
EACH = "each "  # a variable's "type" that says it is an element of what follows (Go's `for _, x := range xs`)
_COMMENT = re.compile(r";[^\n]*")
_YIELD = re.compile(rb"\byield\b")
_CAPTURE = re.compile(r"@([\w.]+)")
_DEF_CAPS = {k: (f"{k}.name", f"{k}.owner", f"{k}.self", f"{k}.doc") for k in _DEF_KINDS}


@cache
def _pattern_roles(language: str) -> tuple[str, ...]:
    """The role of each pattern of a language's query, from the captures the pattern has."""
    q, text = ts_query(language), query_text(language)
    roles = []
    for p in range(q.pattern_count):
        pattern = _COMMENT.sub("", text[q.start_byte_for_pattern(p) : q.end_byte_for_pattern(p)].decode())
        caps = set(_CAPTURE.findall(pattern))
        if "call.new" in caps:
            roles.append(_CALL_NEW)
        elif "ref.name" in caps:
            roles.append(_REF)
        elif "attr.name" in caps:
            roles.append(_ATTR)
        elif "var.name" in caps:
            roles.append(_VAR)
        elif "await.call" in caps:
            roles.append(_AWAIT)
        elif "call.read" in caps:
            roles.append(_READ)
        elif "call.setter" in caps:
            roles.append(_SETTER)
        elif "call.name" in caps:
            roles.append(_CALL_RECV if "call.receiver" in caps else _CALL)
        else:
            roles.append(next(r for r in _ROLES if r in caps))
    return tuple(roles)


@cache
def marks_awaits(language: str) -> bool:
    """Whether the language's query marks the calls whose result is awaited or handed on (AWAIT)."""
    return _AWAIT in _pattern_roles(language)


def _span_key(t: tuple) -> tuple[int, int]:
    return t[0], t[1]


def _first_item(t: tuple) -> int:
    return t[0]


def _innermost(points: list[int], spans: list[tuple[int, int, int]]) -> list[int | None]:
    """For each byte offset in `points` (ascending), the key of the innermost span holding it.

    `spans` are (start, end, key), sorted by start then by end descending, and nest like a tree.
    One sweep, no parent walks: this is the hot path for every call site.
    """
    out: list[int | None] = []
    stack: list[tuple[int, int, int]] = []
    j, n = 0, len(spans)
    for p in points:
        while j < n and spans[j][0] <= p:
            while stack and stack[-1][1] <= spans[j][0]:
                stack.pop()
            stack.append(spans[j])
            j += 1
        while stack and stack[-1][1] <= p:
            stack.pop()
        out.append(stack[-1][2] if stack else None)
    return out


def _matches(spec: LanguageSpec, passes: list[tuple[Node, bytes | None]]):
    """The query's matches over each pass's tree, with the source the first pass showed (None in it)."""
    for root, shown in passes:
        for pattern, caps in QueryCursor(ts_query(spec.name)).matches(root):
            yield shown, pattern, caps


def parse_source(spec: LanguageSpec, src: bytes) -> dict[str, Any]:
    """Everything the graph needs from one file, as plain data (no tree-sitter objects).

    Keys: `defs` (as `parse_definitions`), `had_error`, `module` (a declared package or
    namespace, or None), `imports` (module, name, alias, kind, line), `calls` (tuples of name,
    receiver or None, kind: CALL, AWAIT, NEW or REF, caller: index into defs or None, the byte offset of the
    callee's name), `bases` (owner: index into
    defs, or owner_name for an impl block; name; relation extends/implements/base/requires), `attrs` (tuples of
    the innermost definition holding it, the object (`self`; None for a Go struct field), the
    attribute's name, its type as written and whether that is rather a variable it is assigned), `vars` (tuples
    of the innermost function, a local variable or parameter, its type as written: the class it is constructed
    from or annotated with, or the call it is assigned from; and the byte offset where the binding takes
    effect), `module_vars` (the same, with no function, for the variables the module itself binds, in
    languages whose query captures the names a function binds), `module_reads` (offsets of the calls whose
    receiver is such a module variable that no function around the call binds), `declares` (functions the
    file declares without defining them: a C prototype's name),
    `bound_calls` (indices into `calls` of calls of a name that a function around the call, named or not,
    binds as a variable or parameter), `path_calls` (offsets of the calls whose receiver is a path, not a value:
    `@call.path`, Rust's `regex::escape(s)`), `macro_calls` (offsets of macro invocations, `@call.macro`: `check!(x)`,
    which call only a definition captured `@function.macro`), `instance_calls` (offsets of the calls inside an
    `@instance` block, Ruby's `define_method(n) { ... }`, whose self is an instance though a class method holds them).

    One parse and one query pass per file. Calls are most of the matches, so their branches
    are a couple of dictionary reads: each pattern's role is known from the query beforehand,
    and a call site is placed at its callee's name (which lies in the same innermost function
    as the whole call expression).
    """
    parser = _PARSERS.get(spec.name)
    if parser is None:
        parser = _PARSERS[spec.name] = Parser(ts_language(spec.name))
    tree = parser.parse(spec.parser_text(src))
    passes: list[tuple[Node, bytes | None]] = [(tree.root_node, None)]
    if spec.group == "c" and tree.root_node.has_error and b"#if" in src:
        # `#ifdef W { #else { #endif`, `#ifdef D } #endif`: braces that balance only per branch. When
        # the first branch of each conditional alone (same offsets) parses with fewer errors, it is
        # read first, then the whole file for what lies in the other branches only (a fallback
        # `#else` definition, its calls and includes)
        shown = first_branches(src)
        branch = parser.parse(spec.parser_text(shown))
        if error_size(branch.root_node) < error_size(tree.root_node):
            tree, passes = branch, [(branch.root_node, None), (tree.root_node, shown)]
    roles = _pattern_roles(spec.name)
    found: list[tuple] = []  # (start, -end, node, kind, name node, caps)
    found_first: list[tuple] | None = None  # the functions of the first branches' pass
    scopes: list[tuple[Node, str, str]] = []  # (node, scope|impl, name)
    imports, raw_calls, raw_bases, declared, declares = [], [], [], None, []
    bound: list[tuple[int, bytes]] = []  # (start, name) of names a function binds itself
    scoped: list[tuple[int, bytes, int, int]] = []  # (start, name, span of the function that binds it)
    raw_attrs: list[tuple[int, str | None, str, str, bool]] = []  # (start, object, attribute, type as written,
    # or the variable it is assigned from)
    raw_vars: list[tuple[int, str, str, int]] = []  # (start, variable, type as written, where it takes effect)
    awaited: set[int] = set()  # where the name of a call whose result is awaited or handed on starts
    reads: set[int] = set()  # where a bare name read as a value starts (Ruby's `settings`)
    setters: set[int] = set()  # where the name of a call that an assignment writes to starts (`x.status = 1`)
    path_calls: list[int] = []  # where the name of a call through a path starts (Rust's `regex::escape(s)`)
    macro_calls: list[int] = []  # where the name of a macro's invocation starts (Rust's `check!(x)`)
    instance_blocks: list[tuple[int, int]] = []  # Ruby's `define_method(n) { ... }`: code that runs as an instance
    objects: list[tuple[int, int]] = []  # `export default { ... }`: an object literal whose functions share `this`
    add_call = raw_calls.append
    labelled = spec.overloads  # Swift: a call's argument labels say which overload it calls (`labels.py`)
    labelled_calls: list[tuple[int, tuple[str, ...], int]] = []  # (where the callee's name starts, labels, closures)
    labelled_binds: list[tuple[int, tuple[str, ...], int]] = []  # (where a variable bound from a call takes effect, ...)
    written = spec.written  # PHP's `$this->a`, `Foo::`, `\A\B` as `this.a`, `Foo`, `A.B`
    for shown, pattern, caps in _matches(spec, passes):
        if shown is not None and shown[(at := min(n[0].start_byte for n in caps.values()))] == src[at]:
            continue  # the first branches' pass found it
        role = roles[pattern]
        if "call.args" in caps and src[caps["call.name"][0].end_byte:caps["call.args"][0].start_byte].strip():
            continue  # a macro's tokens: `x * (y + 1)` is no call of `x`, only `x(y)` is
        if shown is not None and found_first is None:
            found_first = [d for d in found if d[3] == "function"]
        if role is _CALL:
            n = caps["call.name"][0]
            add_call((n.start_byte, n.text, None, CALL))
            if labelled and (labels := call_labels(n)) is not None:
                labelled_calls.append((n.start_byte, *labels))
            if "call.macro" in caps:
                macro_calls.append(n.start_byte)
        elif role is _READ:
            n = caps["call.read"][0]
            reads.add(n.start_byte)
            add_call((n.start_byte, n.text, None, CALL))
        elif role is _SETTER:
            setters.add(caps["call.setter"][0].start_byte)
        elif role is _CALL_RECV or role is _REF:
            n = caps["call.name" if role is _CALL_RECV else "ref.name"][0]
            recv = caps.get("call.receiver" if role is _CALL_RECV else "ref.receiver")
            if recv is not None:  # only a short receiver can name a module, a class or self
                r = recv[0]
                # a long chain keeps its head (`Struct.newBuilder()`: another package's object)
                recv = r.text[:_MAX_RECEIVER].decode("utf-8", "replace") + (
                    "" if r.end_byte - r.start_byte <= _MAX_RECEIVER else "(...)")
                if written is not None:
                    recv = written(recv)
            add_call((n.start_byte, n.text, recv or None, CALL if role is _CALL_RECV else REF))
            if labelled and role is _CALL_RECV and (labels := call_labels(n)) is not None:
                labelled_calls.append((n.start_byte, *labels))
            if "call.path" in caps:
                path_calls.append(n.start_byte)
        elif role is _CALL_NEW:
            n = caps["call.new"][0]
            add_call((n.start_byte, n.text if written is None else written(_text(n)).encode(), None, NEW))
        elif role is _AWAIT:
            awaited.add(caps["await.call"][0].start_byte)
        elif role in _DEF_CAPS:
            names = caps.get(_DEF_CAPS[role][0])
            node = caps[role][0]
            if names and (shown is None or not any(s <= node.start_byte < -e for s, e, *_ in found_first)):
                # a function the first branches' pass found holds the other branch's header of itself
                found.append((node.start_byte, -node.end_byte, node, role, names[0], caps))
        elif role == "import":
            if mod := _text(_first(caps, "import.module")):
                row = {
                    "module": mod, "name": _text(_first(caps, "import.name")),
                    "alias": _text(_first(caps, "import.alias")), "kind": _text(_first(caps, "import.kind")),
                    "line": caps["import"][0].start_point[0] + 1, "at": caps["import"][0].start_byte,
                }
                # JavaScript's bare `require(...)` pattern also matches the requires that a declarator
                # pattern names: one row per import, the named one
                at = [i for i, r in enumerate(imports) if (r["module"], r["line"]) == (mod, row["line"])]
                if not _bare(row) or not at:
                    bare = [i for i in at if _bare(imports[i])] if not _bare(row) else []
                    if bare:
                        imports[bare[0]] = row
                    else:
                        imports.append(row)
        elif role in ("scope", "impl"):
            if name := _text(_first(caps, "scope.name" if role == "scope" else "impl.type")):
                scopes.append((caps[role][0], role, _split_name(name)[1]))
        elif role == "module.name":
            declared = declared or _text(caps[role][0])
        elif role is _ATTR:
            obj, typ = _text(_first(caps, "attr.object")), _text(caps["attr.type"][0])
            if written is not None:
                typ = written(typ)
            for n in caps["attr.name"]:
                raw_attrs.append((n.start_byte, obj, _text(n), typ, "attr.variable" in caps))
        elif role is _VAR:
            typ = _text(caps["var.type"][0]) if "var.type" in caps else EACH + _text(caps["var.each"][0])
            if written is not None:
                typ = written(typ)
            if "var.member" in caps:  # a call written in parts (PHP's `$x = $this->make()`): `this.make`
                typ = f"{typ}.{_text(caps['var.member'][0])}"
            # where the binding takes effect: after what it is assigned from (`url = url.copy_with()` reads the
            # `url` bound before it)
            after = max(n.end_byte for ns in caps.values() for n in ns)
            for n in caps["var.name"]:  # Go: `a, b *Engine`
                raw_vars.append((n.start_byte, _text(n), typ, after))
            if labelled and "var.type" in caps and (labels := _bound_call_labels(caps["var.type"][0])) is not None:
                # `let request = session.request(.default)`: which overload it calls, so what it returns
                labelled_binds.append((after, *labels))
        elif role == "declares":
            declares.append(_text(caps[role][0]))
        elif role == "instance":
            instance_blocks.append((caps[role][0].start_byte, caps[role][0].end_byte))
        elif role == "object":
            objects.append((caps[role][0].start_byte, caps[role][0].end_byte))
        elif role == "local":
            for n in caps["local"]:
                bound.append((n.start_byte, n.text))
                if not _imported(n) and (fn := _binding_function(n)) is not None:
                    scoped.append((n.start_byte, n.text, fn.start_byte, fn.end_byte))
        else:
            raw_bases.append((caps[role][0], role))
    found = [d for d in map(_found, _once(found)) if d is not None]
    if any(d["node"].type == "module" for d in found):  # Ruby: a module of nothing but modules and classes
        scopes += [(d["node"], "scope", f"{d['owner']}.{d['name']}" if d["owner"] else d["name"])
                   for d in found if _namespace_only(d["node"])]  # `module Rackup::Handler` qualifies as both
        found = [d for d in found if not _namespace_only(d["node"])]

    # Definitions and scopes as nested spans: keys >= 0 are defs (in source order), < 0 scopes.
    spans = sorted(
        [(d["start"], d["end"], i) for i, d in enumerate(found)]
        + [(n.start_byte, n.end_byte, -1 - k) for k, (n, _, _) in enumerate(scopes)],
        key=lambda t: (t[0], -t[1]),
    )
    parents = _innermost_parents(spans)
    _place_imports(imports, spans, parents, scopes)
    defs = [_definition(spec, src, d, _chain(found, scopes, parents, i, spec.self_names)) for i, d in enumerate(found)]
    for d, f in zip(defs, found):  # Vue's `mounted() { this.load() }`: `this` is the object holding both functions
        d["object"] = next((a for a, b in objects if a <= f["start"] < b), None)
    for i in clashing_instance_methods([(d["kind"], d["qualified_name"], d["singleton"]) for d in defs]):
        defs[i]["qualified_name"] = instance_name(defs[i]["qualified_name"], defs[i]["name"])
    for i in _overloaded(defs):  # what tells them apart in their ids (`ltm.extract.overloads`)
        defs[i]["overload"] = overload_key(found[i]["node"], defs[i]["params"])
    members: dict[int, list[int]] = {}
    for j, parent in parents.items():
        if j >= 0 and parent >= 0 and found[j]["kind"] == "function":
            members.setdefault(parent, []).append(j)
    for i, d in enumerate(defs):
        if d["kind"] == "class":
            own = sorted(members.get(i, []))
            d["outline"] = _outline(found[i]["node"], src, [(found[j]["node"], defs[j]["signature"]) for j in own])
    if setters:  # the call pattern read `x.status = 1` as a call of `status`: it calls the writer `status=`
        raw_calls = [(at, name + b"=", recv, kind) if at in setters else (at, name, recv, kind)
                     for at, name, recv, kind in raw_calls]
    raw_calls.sort(key=_first_item)
    fn_spans = [(s, e, k) for s, e, k in spans if k >= 0 and found[k]["kind"] == "function"]
    callers = _innermost([c[0] for c in raw_calls], fn_spans)
    shadowed = _bound_names(bound, fn_spans, parents)
    calls = [(name.decode("utf-8", "replace"), recv, AWAIT if kind is CALL and at in awaited else kind, caller, at)
             for (at, name, recv, kind), caller in zip(raw_calls, callers)
             if kind is not REF or recv is not None or not _is_bound(shadowed, parents, caller, name)]
    # `new Promise((resolve) => ... resolve())`, `function f(next) { next() }`: a call of a variable, never
    # of a function elsewhere that has the name
    # where the query marks bare reads (Ruby), only they can be a variable: `uri(x)` calls a method though `uri` is
    # a parameter
    bound_calls = _variable_calls(calls, scoped, {d["name_start"] for d in found}, reads if _READ in roles else None)
    raw_bases.sort(key=lambda b: b[0].start_byte)
    owners = _innermost([b[0].start_byte for b in raw_bases], spans)
    bases = []
    for (node, rel), owner in zip(raw_bases, owners):
        if owner is None:
            continue
        bases.append({"owner": owner if owner >= 0 else None,
                      "owner_name": scopes[-1 - owner][2] if owner < 0 else None,
                      "name": _text(node) if written is None else written(_text(node)), "relation": rel})
    raw_attrs.sort(key=_first_item)
    attrs = [(owner, obj, name, typ, variable) for (_, obj, name, typ, variable), owner in
             zip(raw_attrs, _innermost([a[0] for a in raw_attrs], spans)) if owner is not None and owner >= 0]
    raw_vars.sort(key=_first_item)
    variables = [(owner, name, typ, after) for (_, name, typ, after), owner in
                 zip(raw_vars, _innermost([v[0] for v in raw_vars], fn_spans)) if owner is not None]
    module_vars: list[tuple[str, str, int]] = []
    module_reads: list[int] = []
    if "local" in roles:  # a language whose query says which names a function binds (its own shadow the module's)
        module_vars = [(name, typ, after) for (_, name, typ, after), owner in
                       zip(raw_vars, _innermost([v[0] for v in raw_vars], spans)) if owner is None]
        names = {name for name, _, _ in module_vars}
        # `app = Router([...])` above `def test_url(): app.url_path_for(...)`: the module's variable, where
        # neither the caller nor a function around it binds the name
        module_reads = [at for _, recv, _, caller, at in calls
                        if recv in names and caller is not None
                        and not _is_bound(shadowed, parents, caller, recv.encode("utf-8"))]
    return {"defs": defs, "had_error": tree.root_node.has_error, "module": declared,
            "imports": imports, "calls": calls, "bound_calls": bound_calls, "bases": bases, "attrs": attrs,
            "vars": variables, "module_vars": module_vars, "module_reads": module_reads, "declares": declares,
            "path_calls": sorted(path_calls), "macro_calls": sorted(macro_calls),
            # a call in a `define_method` block of a class method runs with an instance as self
            "instance_calls": [at for *_, at in calls if any(a <= at < b for a, b in instance_blocks)],
            "call_labels": labelled_calls, "bind_labels": labelled_binds}


def _bound_call_labels(callee: Node) -> tuple[tuple[str, ...], int] | None:
    """The labels of the call a variable is bound from, given its callee (`session.request` or `make`)."""
    name = callee
    if callee.type == "navigation_expression" and (suffix := callee.child_by_field_name("suffix")) is not None:
        name = suffix.child_by_field_name("suffix") or suffix
    return call_labels(name) if name.type == "simple_identifier" else None


def _place_imports(imports: list[dict], spans: list[tuple[int, int, int]], parents: dict[int, int],
                   scopes: list[tuple[Node, str, str]]) -> None:
    """Each import's `scope`: the names of the naming scopes around it, outermost first (Rust's `use super::*`
    inside `mod tests { ... }` reads from the file's own module, not its parent)."""
    ordered = sorted(imports, key=lambda r: r["at"])
    for row, key in zip(ordered, _innermost([r.pop("at") for r in ordered], spans)):
        names = []
        while key is not None:
            if key < 0 and scopes[-1 - key][1] == "scope":
                names.append(scopes[-1 - key][2])
            key = parents.get(key)
        row["scope"] = names[::-1]


# what makes a Ruby module more than a namespace: a method of its own, a mixin it takes in, an attribute or alias
_MODULE_MEMBERS = ("method", "singleton_method", "alias")
_MODULE_CALLS = re.compile(rb"^(?:include|extend|prepend|attr_reader|attr_accessor|attr_writer|alias_method"
                           rb"|define_method|module_function)$")


def _namespace_only(node: Node) -> bool:
    """A Ruby `module` whose body holds only classes, modules and constants (`module Rack`, `module Sinatra`
    in a file of one class): a namespace that qualifies names, not a class-like node of its own."""
    if node.type != "module":
        return False
    body = node.child_by_field_name("body")
    for child in body.named_children if body is not None else ():
        if child.type in _MODULE_MEMBERS:
            return False
        if child.type == "singleton_class":  # `class << self` with methods
            inner = child.child_by_field_name("body")
            if inner is not None and any(c.type in _MODULE_MEMBERS or c.type == "call" for c in inner.named_children):
                return False
        if child.type == "call" and (m := child.child_by_field_name("method")) is not None \
                and _MODULE_CALLS.match(m.text or b""):
            return False
    return True


def _binding_function(node: Node) -> Node | None:
    """The function (named or not: a lambda, an arrow function) whose variable or parameter `node` is."""
    p = node.parent
    while p is not None and not ("function" in p.type or p.type in _FUNCTION_NODES):
        p = p.parent
    return p


# Ruby's methods and `do` blocks; a `{ }` block is a `block`, which is also Python's body of any statement: a
# name it binds belongs to the method around it
_FUNCTION_NODES = ("lambda", "arrow_function", "method_definition", "method", "singleton_method", "do_block")
_IMPORTING = re.compile(rb"^(?:await\s+)?(?:require|import)\s*\(")


def _imported(node: Node) -> bool:
    """A name bound to a module or taken out of one (`const { a } = require('./x')`, `const f = require('./x').f`,
    `await import('./x')`): an import, not a variable."""
    p = node.parent
    while p is not None and p.type in ("object_pattern", "array_pattern", "pair_pattern",
                                       "object_assignment_pattern", "shorthand_property_identifier_pattern"):
        p = p.parent
    value = p.child_by_field_name("value") if p is not None and p.type == "variable_declarator" else None
    return value is not None and _IMPORTING.match(value.text or b"") is not None


def _variable_calls(calls: list[tuple], scoped: list[tuple[int, bytes, int, int]], def_names: set[int],
                    reads: set[int] | None = None) -> list[int]:
    """Indices of the bare calls whose name a function around them binds as a variable or parameter
    (`new Promise((resolve) => resolve())`); a function's own name (`const f = () => f()`) is no variable.
    `reads`: where given, only the calls at these offsets (bare names read as values) can be a variable."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for start, name, lo, hi in scoped:
        if start not in def_names:
            spans.setdefault(name.decode("utf-8", "replace"), []).append((lo, hi))
    if not spans:
        return []
    return [i for i, (name, recv, kind, caller, at) in enumerate(calls)
            if recv is None and kind in (CALL, AWAIT) and caller is not None and (reads is None or at in reads)
            and any(lo <= at < hi for lo, hi in spans.get(name, ()))]


def _bound_names(bound: list[tuple[int, bytes]], fn_spans: list, parents: dict[int, int]) -> set[tuple[int, bytes]]:
    """(function index, name) for each name a function binds: its parameters and assigned names."""
    bound.sort(key=_first_item)
    return {(fn, name) for (_, name), fn in zip(bound, _innermost([b[0] for b in bound], fn_spans)) if fn is not None}


def _is_bound(shadowed: set[tuple[int, bytes]], parents: dict[int, int], fn: int | None, name: bytes) -> bool:
    """Whether `name` is a variable of function `fn` or of a function enclosing it (a closure's)."""
    while fn is not None and fn >= 0:
        if (fn, name) in shadowed:
            return True
        fn = parents.get(fn)
    return False


def _once(found: list[tuple]) -> list[tuple]:
    """The definition matches in source order, one per node: a node two patterns capture (a JavaScript object's
    `get() {}` is a method definition anywhere, and `api.get` where the object is `const api = {...}`) is the
    match that names its owner."""
    by_node: dict[tuple[int, int, str], tuple] = {}
    for m in found:
        key = (m[0], m[1], m[3])
        if key not in by_node or (f"{m[3]}.owner" in m[5] and f"{m[3]}.owner" not in by_node[key][5]):
            by_node[key] = m
    return sorted(by_node.values(), key=_span_key)


def _found(match: tuple) -> dict | None:
    """A definition match as the fields the naming rules need (None when its name is empty)."""
    start, neg_end, node, kind, name_node, caps = match
    raw = _text(name_node)
    if raw and name_node.type == "simple_symbol":  # Ruby's `attr_reader :request` defines `request`
        raw = raw[1:]
    elif raw and raw[0] == "`" and raw[-1] == "`":  # Kotlin's `fun `reads a name`()`: the name is what is quoted
        raw = raw[1:-1]
    if not raw:
        return None
    name_cap, owner_cap, self_cap, doc_cap = _DEF_CAPS[kind]
    owner, name = _split_name(raw)
    owner = _text(_first(caps, owner_cap)) or owner
    doc = _first(caps, doc_cap)
    return {"kind": kind, "node": node, "start": start, "end": -neg_end, "name": name, "owner": owner,
            "name_start": name_node.start_byte, "macro": "function.macro" in caps, "singleton": singleton(node),
            "self": _text(_first(caps, self_cap)), "doc": _strip_docstring(_text(doc)) if doc is not None else None}


def _chain(found: list[dict], scopes: list, parents: dict[int, int], i: int,
           self_names: tuple[str, ...] = ()) -> tuple[list[str], str | None, str | None]:
    """The enclosing names of definition `i` (innermost first), its parent kind and impl owner."""
    chain, parent_kind, impl_owner = [], None, None
    p, outermost = parents.get(i), None
    while p is not None:
        if p >= 0:
            chain.append(found[p]["name"])
            parent_kind = parent_kind or found[p]["kind"]
        else:
            _, kind, name = scopes[-1 - p]
            chain.append(name)
            if kind == "impl" and parent_kind is None:
                parent_kind, impl_owner = "class", name
        p, outermost = parents.get(p), p
    d = found[i]
    if d["owner"] and parent_kind is None:  # a Go receiver or a C++ `A::f` outside its class
        chain, parent_kind = [d["owner"]], "class"
    elif d["owner"] in self_names and parent_kind == "function" and (p := parents.get(i)) is not None \
            and (q := parents.get(p)) is not None and q >= 0 and found[q]["kind"] == "class":
        chain, parent_kind = chain[1:], "class"  # `this.on = () => ...` in a constructor: a method of its class
    elif outermost is not None and outermost >= 0 and found[outermost]["owner"]:
        chain.append(found[outermost]["owner"])  # inside C++'s `A::f` or `class A::B`: A encloses it too
    return chain, parent_kind, impl_owner


def _definition(spec: LanguageSpec, src: bytes, d: dict, where: tuple) -> dict:
    chain, parent_kind, impl_owner = where
    node, start, end = d["node"], d["start"], d["end"]
    text = src[start:end]
    qualified = ".".join(reversed(chain))
    signature, stub = _signature(node, src)
    returns = _return_type(node)
    return {
        "kind": d["kind"],
        "name": d["name"],
        "qualified_name": f"{qualified}.{d['name']}" if chain else d["name"],
        "parent_kind": parent_kind,
        "parent_qualified": qualified or None,
        "line_start": node.start_point[0] + 1,
        "line_end": node.end_point[0] + 1,
        "signature": signature,
        "stub": stub,
        # Python's `async def`, JavaScript's `async f()`, not an async generator (`async for x in f()`)
        "coroutine": signature.startswith("async ") and _YIELD.search(text) is None,
        "returns": returns if returns is None or spec.written is None else spec.written(returns),
        "docstring": d["doc"] if d["doc"] is not None else _leading_comment(src, start, spec),
        "text": text[: MAX_TEXT_CHARS * 2].decode("utf-8", errors="replace")[:MAX_TEXT_CHARS],
        "body_hash": hashlib.sha1(text).hexdigest(),
        "class_kind": _class_kind(node) if d["kind"] == "class" else None,
        "self_name": d["self"],
        "impl_owner": impl_owner,
        "macro": d["macro"],  # only `name!(...)` calls it (`@function.macro`: Rust's `macro_rules!`)
        "singleton": d["singleton"],  # Ruby's `def self.m` or a method of `class << self`: the class's own method
        # Swift: the labels its calls write, which tell its overloads apart
        "params": parameters(node) if spec.overloads and d["kind"] == "function" else None,
        "overload": None,  # set where the file defines the qualified name again (`_overloaded`)
    }


def _overloaded(defs: list[dict]) -> list[int]:
    """The functions whose qualified name the file defines more than once."""
    seen: dict[str, int] = {}
    for d in defs:
        if d["kind"] == "function":
            seen[d["qualified_name"]] = seen.get(d["qualified_name"], 0) + 1
    return [i for i, d in enumerate(defs) if d["kind"] == "function" and seen[d["qualified_name"]] > 1]


_SINGLETON_STOPS = ("class", "module", "method", "singleton_method")


def singleton(node: Node) -> bool:
    """Whether a definition is a Ruby class's own method (`def self.m`, a `def m` or `attr_reader` inside
    `class << self`), not its instances'."""
    if node.type == "singleton_method":
        return True
    p = node.parent
    while p is not None and p.type not in _SINGLETON_STOPS:
        if p.type == "singleton_class":
            return True
        p = p.parent
    return False


def instance_name(qualified: str, name: str) -> str:
    """`Foo.m` -> `Foo#m`: an instance method as Ruby writes it, for one that shares its name with a singleton
    method of the same class (`def self.m` beside `def m`), which keeps `Foo.m`."""
    return f"{qualified[: len(qualified) - len(name) - 1]}#{name}"


def clashing_instance_methods(defs: list[tuple[str, str, bool]]) -> set[int]:
    """Indices of the functions (kind, qualified name, singleton) that are instance methods named as a singleton
    method of the file is: those are named apart (`instance_name`). Where no name clashes, nothing moves, so the
    ids of every other method stay as they were."""
    singles = {qn for kind, qn, single in defs if kind == "function" and single}
    return {i for i, (kind, qn, single) in enumerate(defs) if kind == "function" and not single and qn in singles}


_OPTIONAL = re.compile(r"^(?:\w+\.)*Optional\[(.+)\]$|^(.+?)\s*\|\s*(?:None|null|undefined)$|^None\s*\|\s*(.+)$")


def _return_type(node: Node) -> str | None:
    """The type a function declares it returns, as written (Python's `-> Foo`, TypeScript's `: Foo`, Go's
    `*Foo` or the first of `(*Foo, error)`, Java's, C#'s and C++'s `Foo f()`), with quotes, a pointer and an Optional or `| None` around it
    taken off; None when it declares none."""
    ret = node.child_by_field_name("return_type")
    if ret is None and node.type in ("method_declaration", "function_definition"):
        ret = node.child_by_field_name("type") or node.child_by_field_name("returns")  # Java, C++; C#
    if ret is None and node.type == "function_declaration" and (ret := _kotlin_return(node)) is not None:
        pass  # Kotlin's `fun f(): Foo`, `fun f(): Foo?`
    elif ret is None and (ret := node.child_by_field_name("result")) is not None and ret.type == "parameter_list":
        first = ret.named_children[0] if ret.named_children else None  # Go: the value, not the error beside it
        ret = first.child_by_field_name("type") if first is not None and first.type == "parameter_declaration" else None
    if ret is None:
        return None
    typ = ret.text.decode("utf-8", "replace").lstrip(":").strip()
    if len(typ) > 120:
        return None
    if m := _OPTIONAL.match(typ):
        typ = next(g for g in m.groups() if g)
    for _ in range(3):  # Rust: `Result<Option<Self>, E>` holds a Self where `?` or `unwrap()` takes it out
        if not (m := _WRAPPED.match(typ)):
            break
        typ = _first_argument(m[1])
    return typ.strip().strip("'\"").lstrip("*").rstrip("?!") or None  # Swift's `Foo?`, `Foo!`


def _kotlin_return(node: Node) -> Node | None:
    """The type after a Kotlin function's parameters (the grammar names no field: the type before the name
    is an extension's receiver); a nullable `Foo?` is its `Foo`."""
    after = False
    for child in node.named_children:
        if child.type == "function_value_parameters":
            after = True
        elif after and child.type in ("user_type", "nullable_type"):
            return child.named_children[0] if child.type == "nullable_type" and child.named_children else child
        elif after:
            return None
    return None


_WRAPPED = re.compile(r"^(?:\w+::)*(?:Option|Result|Box|Rc|Arc)\s*<(.+)>$", re.S)


def _first_argument(args: str) -> str:
    """`Config, io::Error` -> `Config`; `HashMap<K, V>, E` -> `HashMap<K, V>`."""
    depth = 0
    for i, ch in enumerate(args):
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            return args[:i].strip()
    return args.strip()


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
