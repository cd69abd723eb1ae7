"""What tells a function's overloads apart without a line number: the parameters as the language's users read them.

A file that defines one qualified name more than once (Java, C#, Kotlin or C++ overloads, Python's typing
overloads and property setters, Swift's labelled methods) needs one id per definition. A line number would do, but
it moves whenever a line above is added or removed, so the id would change although the function did not. The
parameters do not move: `JsonReader.read(String,int)` from the types as written (whitespace normalized, no names),
and Swift's own selector, `request(_:didFail:)`, from its argument labels. Plain strings, so they cross processes
with the rest of a file's facts.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from ltm.extract.labels import Parameter

# Parameter lists by the node type that holds them, where no field names them (Kotlin's)
_LIST_TYPES = ("function_value_parameters", "parameter_list", "formal_parameters", "parameters")
# Nodes in a parameter list that are no parameter.
_SKIP = ("comment", "line_comment", "block_comment", "attribute_list", "keyword_separator", "positional_separator",
         "parameter_modifiers", "lambda_literal")
_NAMES = ("identifier", "field_identifier", "simple_identifier")
_UNTYPED_RECEIVERS = ("self", "cls")  # Python's receivers, which a reader does not write when naming a method
_C_SHARP_MODIFIERS = ("ref", "out", "in")  # they make an overload of their own: `Read(ref int)` beside `Read(int)`
_C_PARAMETERS = ("parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration")
_SPLATS = {"list_splat_pattern": "*", "dictionary_splat_pattern": "**"}
_SPACE = re.compile(r"\s+")
_TIGHT_BEFORE = re.compile(r" ([,>)\[\]*&?:])")
_TIGHT_AFTER = re.compile(r"([,<(\[]) ")


def overload_key(node: Node, params: list[Parameter] | None) -> str | None:
    """`(String,int)` for a definition, from its parameters; Swift's `(_:didFail:)` from its labels (`params`).

    None where the grammar shows no parameter list (a Ruby `def f` without parentheses, a Kotlin getter). An
    untyped parameter is `_`; Python's untyped `self` or `cls` is left out.
    """
    if params is not None:
        return "(" + "".join(f"{p[0]}:" for p in params) + ")"
    plist = _parameter_list(node)
    if plist is None:
        return None
    types: list[str] = []
    modifier = ""
    for i, child in enumerate(plist.children):
        field = plist.field_name_for_child(i)
        if field == "type":  # C#'s `params object[] xs` sits in the list itself, its fields loose
            types.append(_written(child))
        elif child.type == "...":  # C's `f(const char *fmt, ...)`
            types.append("...")
        elif child.type == "parameter_modifiers":  # Kotlin's `vararg`, before the parameter it marks
            modifier = "vararg " if b"vararg" in (child.text or b"") else ""
        elif child.is_named and child.type not in _SKIP and field is None:
            t = _parameter_type(child)
            if t is not None:  # Go's `x, y int` is two parameters of one type
                names = len(child.children_by_field_name("name")) if child.type == "parameter_declaration" else 1
                types.extend([modifier + t] * max(1, names))
            modifier = ""
    return "(" + ",".join(types) + ")"


def _parameter_list(node: Node) -> Node | None:
    found = node.child_by_field_name("parameters")
    if found is not None:
        return found
    declarator = node.child_by_field_name("declarator")  # C and C++: the list is in the function's declarator
    while declarator is not None:
        if declarator.type == "function_declarator":
            return declarator.child_by_field_name("parameters")
        declarator = declarator.child_by_field_name("declarator")
    return next((c for c in node.named_children if c.type in _LIST_TYPES), None)


def _parameter_type(p: Node) -> str | None:
    """One parameter's type as written; `_` where none is; None for a Python receiver or a C `void`."""
    if p.type == "variadic_parameter":  # C's `...`
        return "..."
    if p.type in _NAMES:  # Python's or JavaScript's untyped `x`
        return None if (p.text or b"").decode() in _UNTYPED_RECEIVERS else "_"
    if p.type in _SPLATS:  # Python's `*args`, `**kw`
        return _SPLATS[p.type] + "_"
    if p.type in _C_PARAMETERS and p.child_by_field_name("name") is None:  # Go's have a name and a type
        return _c_type(p)
    t = p.child_by_field_name("type")
    if t is not None:
        text = _written(t).removeprefix(":").strip()  # TypeScript's `type_annotation` holds its colon
        if p.type == "parameter" and p.child_by_field_name("name") is not None:  # C#'s `ref int n`
            mods = [_written(c) for c in p.named_children if c.type == "modifier"]
            text = " ".join([m for m in mods if m in _C_SHARP_MODIFIERS] + [text])
        if p.type == "variadic_parameter_declaration":  # Go's `args ...string`
            text = "..." + text
        elif p.type == "spread_parameter" or p.type == "required_parameter" and _is_rest(p):
            text += "..."
        elif p.named_children and p.named_children[0].type in _SPLATS:  # Python's `*args: int`
            text = _SPLATS[p.named_children[0].type] + text
        return text
    if p.type == "spread_parameter":  # Java's `int... rest`: its type is its first named child
        return _written(p.named_children[0]) + "..."
    if p.type == "parameter" and len(p.named_children) > 1:  # Kotlin's `s: String`
        return _written(p.named_children[-1])
    if p.type == "self_parameter":  # Rust's `&mut self`: it tells a trait's methods from an inherent one's
        return _written(p)
    return "_"  # untyped: JavaScript's `x = 1`, Ruby's `opts = {}`, PHP's `$x`


def _is_rest(p: Node) -> bool:
    pattern = p.child_by_field_name("pattern")
    return pattern is not None and pattern.type == "rest_pattern"


def _c_type(p: Node) -> str | None:
    """C and C++: the declaration without the parameter's name and default (`const std::string&`, `int (*)(int)`)."""
    start = p.start_byte
    default = p.child_by_field_name("default_value")
    text = p.text or b""
    cut = len(text) if default is None else text.rfind(b"=", 0, default.start_byte - start)
    declarator = p.child_by_field_name("declarator")
    name = _declared_name(declarator)
    if name is not None and name.end_byte - start <= cut:
        text = text[: name.start_byte - start] + text[name.end_byte - start : cut]
    else:
        text = text[:cut]
    written = _normalize(text.decode("utf-8", "replace"))
    return None if written == "void" and declarator is None else written  # C's `f(void)` takes nothing


def _declared_name(d: Node | None) -> Node | None:
    while d is not None:
        if d.type in _NAMES:
            return d
        if d.type in ("parameter_list", "function_declarator") and d.child_by_field_name("declarator") is None:
            return None
        d = d.child_by_field_name("declarator") or next(
            (c for c in d.named_children if c.type != "parameter_list"), None)
    return None


def _written(node: Node) -> str:
    return _normalize((node.text or b"").decode("utf-8", "replace"))


def _normalize(text: str) -> str:
    """One line, one space between words and none around punctuation: `Dictionary<string,int>`."""
    return _TIGHT_AFTER.sub(r"\1", _TIGHT_BEFORE.sub(r"\1", _SPACE.sub(" ", text).strip()))
