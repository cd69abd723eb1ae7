"""Priors a user expects of a ranking, applied after fusion: what the question asks for comes first.

- Package code ahead of tests, examples, benchmarks, vendored code and docs, unless the question
  is about tests (`Intent.about_tests`).
- Functions and classes ahead of commits, bugs and memories (documentation included) when the
  question asks where / which function (`Intent.prefer == "code"`), commits ahead when it asks when / who / why ("history").
- Entities that no longer exist at the tip (`removed_in`) below live ones, unless the question is
  about the past (`Intent.about_past`).
- Stored memories ahead of code and commits when the question asks what the team decided,
  agreed or noted (`Intent.prefer == "memory"`).
- Inside a scope the question names ("only in src", "inside the package"), what lies outside it
  goes down.
Each prior multiplies the blended score by a factor in (0, 1]; a hit is never removed by one.
"""

from __future__ import annotations

from ltm.code_paths import is_auxiliary_entity
from ltm.graph.entity_ids import label_of, name_from_id, path_from_id
from ltm.graph.node import Node
from ltm.retrieval.intent import Intent

AUX_FACTOR = 0.55  # tests, examples, docs, vendored code, benchmarks
OFF_PREFERENCE = 0.6  # a commit for a where-question, code for a when/who/why question
OUT_OF_SCOPE = 0.4
REMOVED_FACTOR = 0.5

CODE = ("Function", "Class", "Module", "File")


def entity_path(entity_id: str) -> str | None:
    """The file an id points into (functions, classes, files); modules have none in their id."""
    label = label_of(entity_id)
    if label in ("Function", "Class"):
        return path_from_id(entity_id)
    if label == "File":
        return name_from_id(entity_id)
    if label == "Module":
        name = name_from_id(entity_id) or ""
        return name.replace(".", "/")
    return None


def factor(entity_id: str, intent: Intent, node: Node | None = None) -> float:
    """The product of the priors that apply to one hit (`node`: its signals, to know a removed one)."""
    label = label_of(entity_id)
    f = REMOVED_FACTOR if node is not None and node.removed and not intent.about_past else 1.0
    if label in CODE:
        path = entity_path(entity_id) or ""
        qualified = name_from_id(entity_id) if label in ("Function", "Class") else None
        if not intent.about_tests and is_auxiliary_entity(path, qualified):
            f *= AUX_FACTOR
        if intent.scope and intent.scope != "package" and label != "Module" and not path.startswith(intent.scope):
            f *= OUT_OF_SCOPE
        if intent.prefer == "history":
            f *= OFF_PREFERENCE
    elif label in ("Commit", "Bug", "Memory") and intent.prefer == "code":
        f *= OFF_PREFERENCE  # notes and documentation about the code come after the code itself
    if intent.prefer == "memory" and label != "Memory":
        f *= OFF_PREFERENCE
    return f
