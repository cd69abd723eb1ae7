"""The language table: one row per supported language, each with a grammar wheel and a query file.

Adding a language is a query file in `queries/<name>.scm` and a row here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import PurePosixPath

import tree_sitter_python
from tree_sitter import Language, Query


def python_module(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`; `pkg/__init__.py` -> `pkg`; `src/` prefixes dropped."""
    p = PurePosixPath(path)
    parts = list(p.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if parts and parts[0] in ("src", "lib") and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts) or p.stem


@dataclass(frozen=True)
class LanguageSpec:
    """A supported language: file extensions, grammar, module naming."""

    name: str
    extensions: tuple[str, ...]
    grammar: Callable[[], object]
    module_name: Callable[[str], str]


LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in [
        LanguageSpec("python", (".py", ".pyi"), tree_sitter_python.language, python_module),
    ]
}

_BY_EXTENSION = {ext: spec for spec in LANGUAGES.values() for ext in spec.extensions}


def language_for(path: str) -> LanguageSpec | None:
    """The language of a path by its extension, or None."""
    return _BY_EXTENSION.get(PurePosixPath(path).suffix.lower())


@cache
def ts_language(name: str) -> Language:
    """The tree-sitter Language of a supported language (loaded once per process)."""
    return Language(LANGUAGES[name].grammar())


@cache
def ts_query(name: str) -> Query:
    """The compiled entity query of a language, from `queries/<name>.scm`."""
    text = resources.files("ltm.extract").joinpath("queries", f"{name}.scm").read_text(encoding="utf-8")
    return Query(ts_language(name), text)
