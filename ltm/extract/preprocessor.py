"""Conditional compilation lines (`#if`, `#elif`, `#else`, `#endif`) hidden from a grammar that trips on them.

tree-sitter-c-sharp parses a directive where it stands, so one that splits a construct
(`class JsonReader` / `#if X` / `: IAsyncDisposable` / `#endif` / `{`, or an `#if` around an
`else if` branch) leaves an ERROR that takes the enclosing class's name, or a method's owner,
with it. Without the directive lines the code of every branch reads as one text, which parses
wherever the branches are whole members or clauses (most code; Newtonsoft.Json: ERROR nodes
226 -> 8). The lines become spaces, so every byte offset and line number stays the file's, and
a text differs from the file only on the lines an edit of the file touches (incremental reparses
in history stay right).
"""

from __future__ import annotations

import re

_CONDITIONAL = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*#[ \t]*(?:if|elif|else|endif)\b[^\r\n]*", re.M)


def _spaces(m: re.Match) -> bytes:
    return b" " * (m.end() - m.start())


def without_conditionals(src: bytes) -> bytes:
    """`src` with each `#if`/`#elif`/`#else`/`#endif` line turned to spaces (same length, same lines)."""
    return _CONDITIONAL.sub(_spaces, src) if b"#" in src else src
