"""Same-offset rewrites of a source text that its grammar would misread as written.

Like `conditionals.py` and `macros.py`, each rewrite keeps every byte offset and every line of what
the entities are (definitions start and end on the lines they are written on), so names, spans and
call sites read from the rewritten text point into the original.
"""

from __future__ import annotations

import re

# `class Options\n  private constructor(...)`: a primary constructor on the line after the class's name, which
# tree-sitter-kotlin 1.1.0 reads as an error spanning the rest of the class (moshi's `JsonReader`: every method
# then read as a top-level function)
_KOTLIN_CONSTRUCTOR = re.compile(
    rb"(\b(?:class|object)\s+\w+(?:\s*<[^>{}()]*>)?)"  # the header up to the name and its type parameters
    rb"([ \t]*\r?\n[ \t\r\n]*)"  # the line break
    rb"((?:@\w+(?:\([^()\n]*\))?\s+)*(?:(?:public|private|protected|internal)\s+)?(?:@\w+(?:\([^()\n]*\))?\s+)*"
    rb"constructor\s*\()"
)


def kotlin_constructor_joined(src: bytes) -> bytes:
    """`src` with each class header's primary `constructor(` moved up onto the header's line and the line break
    moved after its `(` (same length, same lines for everything after it)."""
    if b"constructor" not in src:
        return src
    return _KOTLIN_CONSTRUCTOR.sub(_joined, src)


def _joined(m: re.Match) -> bytes:
    space, breaks = m[2], m[2].count(b"\n")
    return m[1] + b" " + m[3] + b"\n" * breaks + b" " * (len(space) - 1 - breaks)
