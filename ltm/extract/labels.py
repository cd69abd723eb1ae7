"""Argument labels: which of a function's overloads a call names, where the language names them by labels (Swift).

Swift's `request(_:didCreateTask:)` and `request(_:didFailTask:)` are two methods of one name (Alamofire's
EventMonitor has fifty `request` overloads), told apart by the labels a call writes: `m.request(r, didCreateTask:
t)`. A definition's parameters are (label, has a default, variadic); a call's labels are its arguments' (`_` for
an unlabelled one) and how many trailing closures follow them (`perform(r) { ... }`). Both are plain data, so they
cross processes with the rest of a file's facts.
"""

from __future__ import annotations

from tree_sitter import Node

Parameter = tuple[str, bool, bool, bool]  # (label, has a default value, variadic, takes a closure)
CallLabels = tuple[tuple[str, ...], int]  # (the arguments' labels, the number of trailing closures)

_FUNCTIONS = ("function_declaration", "init_declaration", "protocol_function_declaration")


def parameters(node: Node) -> list[Parameter] | None:
    """A Swift function's parameters as a call labels them (the external name, else the name); None for a node
    that is not a function with a parameter list."""
    if node.type not in _FUNCTIONS:
        return None
    out: list[Parameter] = []
    children = node.children
    for i, child in enumerate(children):
        if child.type != "parameter":
            continue
        label = child.child_by_field_name("external_name") or child.child_by_field_name("name")
        default = i + 1 < len(children) and children[i + 1].type == "="
        text = child.text or b""
        variadic, closure = text.rstrip().endswith(b"..."), b"->" in text
        out.append(((label.text or b"_").decode("utf-8", "replace") if label is not None else "_", default, variadic,
                    closure))
    return out


def call_labels(name: Node) -> CallLabels | None:
    """The labels of the call whose callee's name is `name` (`f(1, to: x) { }` -> (`_`, `to`), 1 trailing
    closure); None where the name is not a call's callee."""
    call = name.parent
    if call is not None and call.type == "navigation_suffix":  # `x.f(...)`: name < suffix < navigation < call
        call = call.parent.parent if call.parent is not None else None
    if call is None or call.type != "call_expression":
        return None
    suffix = next((c for c in call.children if c.type == "call_suffix"), None)
    if suffix is None:
        return None
    labels: list[str] = []
    trailing = 0
    for part in suffix.named_children:
        if part.type == "value_arguments":
            for arg in part.named_children:
                if arg.type == "value_argument":
                    label = arg.child_by_field_name("name")
                    labels.append((label.text or b"_").decode("utf-8", "replace").rstrip(":").strip()
                                  if label is not None else "_")
        elif part.type == "lambda_literal":
            trailing += 1
    return tuple(labels), trailing


def fits(params: list[Parameter], call: CallLabels) -> bool:
    """Whether a call with these labels can call a function with these parameters: each label in order (a
    parameter with a default may be left out, a variadic one takes more unlabelled arguments), then the trailing
    closures take the last parameters, the last of which takes a closure (`run("a") { }` is not `run(_:times:)`)."""
    labels, trailing = call
    i = 0
    for label in labels:
        if i > 0 and params[i - 1][2] and label == "_" and params[i - 1][0] == "_":
            continue  # another argument of a variadic `_ items: Any...`
        while i < len(params) and params[i][0] != label:
            if not params[i][1]:
                return False
            i += 1
        if i == len(params):
            return False
        i += 1
    rest = params[i:]
    if trailing and not (rest and rest[-1][3]):
        return False
    return sum(not p[1] for p in rest) <= trailing <= len(rest)


def pick(hit: str, overloads: list[str], params: dict[str, list[Parameter]], call: CallLabels) -> str:
    """Of a function's overloads, the one the call's labels fit: `hit` where it fits (or where none does: nothing
    better is known), else the first that does (in source order)."""
    if hit in params and fits(params[hit], call):
        return hit
    return next((o for o in overloads if o in params and fits(params[o], call)), hit)
