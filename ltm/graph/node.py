"""What a node shows of itself without reading LanceDB: its summary (name, location, date, text),
its ranking signals, and which of its properties a view reads for that."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# What a neighbour shows of itself.
SHOWN_PROPS = ("qualified_name", "name", "path", "sha", "message", "committed_at", "author_name", "ref", "title", "category",
               "removed_in")

# label -> summary expressions (key, property); only those the build has are selected.
_SUMMARY = {
    "Function": [("name", "qualified_name"), ("file_path", "file_path"), ("line_start", "line_start"),
                 ("line_end", "line_end"), ("text", "signature"), ("doc", "docstring")],
    "Class": [("name", "qualified_name"), ("file_path", "file_path"), ("line_start", "line_start"),
              ("line_end", "line_end"), ("text", "docstring")],
    "Module": [("name", "name"), ("file_path", "path")],
    "File": [("name", "path"), ("file_path", "path")],
    "Commit": [("name", "sha"), ("text", "message"), ("created_at", "committed_at"),
               ("author", "author_name"), ("author_email", "author_email"), ("kind", "kind")],
    "Bug": [("name", "ref"), ("text", "title")],
    "Memory": [("name", "category"), ("text", "content"), ("created_at", "created_at"), ("category", "category")],
    "Repository": [("name", "name")],
}
_NODE_FIELDS = ("name", "file_path", "line_start", "line_end", "created_at", "text")


def shown_props(label: str) -> list[str]:
    """The properties of `label` a summary and a neighbour's line read, each once (a build may lack some)."""
    return list(dict.fromkeys([p for _, p in _SUMMARY.get(label, [])] + ["repo", *SHOWN_PROPS]))


@dataclass
class Node:
    """What retrieval shows of a node without reading LanceDB."""

    id: str
    label: str
    repo: str | None = None
    vector_id: str | None = None
    name: str | None = None
    file_path: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    created_at: Any = None
    text: str | None = None
    pagerank: float | None = None
    defects: float = 0.0
    removed: bool = False  # no longer at the tip of its repository (a past node of the history)
    extra: dict[str, Any] = field(default_factory=dict)

    def fill(self, props: dict[str, Any]) -> None:
        """The summary from the node's properties (`GraphView.details`); a function's docstring joins its signature."""
        self.repo = props.get("repo")
        for key, prop in _SUMMARY.get(self.label, []):
            v = props.get(prop)
            if key in _NODE_FIELDS:
                setattr(self, key, v)
            elif v is not None and key != "doc":
                self.extra[key] = v
        doc = props.get("docstring") if self.label == "Function" else None
        if doc:
            self.text = f"{self.text}\n{doc}" if self.text else doc
