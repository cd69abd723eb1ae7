"""What a graph_entity_id says by itself (`ltm.ids`): its label, its name, its file, without a query."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

ID_PREFIX_LABEL = {
    "fn": "Function", "cls": "Class", "mod": "Module", "file": "File", "commit": "Commit",
    "bug": "Bug", "mem": "Memory", "repo": "Repository", "fver": "FileVersion",
}


def label_of(entity_id: str) -> str | None:
    """The node label of a graph_entity_id, from its prefix (`fn:` -> Function, ...)."""
    return ID_PREFIX_LABEL.get(entity_id.split(":", 1)[0])


def name_from_id(entity_id: str) -> str | None:
    """What `Node.name` holds, read off the id (ltm.ids): qualified name, module name, path, sha or bug ref.

    Function and class ids end with the qualified name, which `parse.py` joins with dots, never colons, and
    an overload's parameters, which may hold colons (`request(_:didFail:)`, `read(std::string)`).
    None for memories and repositories (their name is a property).
    """
    prefix, _, rest = entity_id.partition(":")
    if prefix not in ("fn", "cls", "mod", "file", "commit", "bug"):
        return None
    rest = rest.partition(":")[2]  # drop the repository key
    if prefix not in ("fn", "cls"):
        return rest
    head, params = _split_parameters(rest)
    return head.rsplit(":", 1)[-1] + params


def _split_parameters(rest: str) -> tuple[str, str]:
    """`path:Cls.read(String,int)` -> (`path:Cls.read`, `(String,int)`): the balanced parentheses that end an
    overload's id (`ltm.extract.overloads`); ("...", "") for any other id, C++'s `A.operator()` included."""
    if not rest.endswith(")"):
        return rest, ""
    depth = 0
    for i in range(len(rest) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(rest[i], 0)
        if depth == 0:
            return (rest, "") if rest[i:] == "()" and rest[:i].endswith("operator") else (rest[:i], rest[i:])
    return rest, ""


_ORDINAL = re.compile(r"@L?\d+$")


def plain_id(entity_id: str) -> str:
    """The id of the definition an overload's id names one of (`fn:r:a.java:A.read(String,int)@2` ->
    `fn:r:a.java:A.read`): the function as one name, as history and a name lookup see it."""
    if label_of(entity_id) not in ("Function", "Class"):
        return entity_id
    return _split_parameters(_ORDINAL.sub("", entity_id))[0]


def short_name(entity_id: str) -> str:
    """How an entity is named to a reader: a qualified name, a module, a path, a short sha, a bug ref
    (a memory, which has no name in its id, by its id)."""
    name = name_from_id(entity_id)
    if name is None:
        return entity_id
    if label_of(entity_id) == "Commit":
        return name[:10]
    # an ordinal (`check(Class<?>)@2`, `Command.main@L1484` in lakes written before ordinals) says nothing to a
    # reader; an overload's parameters, `read(String,int)`, stay: they tell which one
    return _ORDINAL.sub("", name)


def path_from_id(entity_id: str) -> str | None:
    """The file path inside a function or class id (`fn:<repo>:<path>:<qualified>`), else None."""
    prefix, _, rest = entity_id.partition(":")
    return _split_parameters(rest.partition(":")[2])[0].rsplit(":", 1)[0] if prefix in ("fn", "cls") else None


def by_label(ids: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for i in dict.fromkeys(ids):
        label = label_of(i)
        if label:
            out[label].append(i)
    return out
