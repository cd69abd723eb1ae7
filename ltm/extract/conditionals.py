"""Preprocessor conditionals (`#if`, `#elif`, `#else`, `#endif`) that trip a grammar, read two ways.

C#: tree-sitter-c-sharp parses a directive where it stands, so one that splits a construct
(`class JsonReader` / `#if X` / `: IAsyncDisposable` / `#endif` / `{`, or an `#if` around an
`else if` branch) leaves an ERROR that takes the enclosing class's name, or a method's owner,
with it. `without_conditionals` turns the directive lines to spaces, so the code of every branch
reads as one text, which parses wherever the branches are whole members or clauses (most code;
Newtonsoft.Json: ERROR nodes 226 -> 8); a text differs from the file only on the lines an edit of
the file touches (incremental reparses in history stay right).

C and C++: `#ifdef _WIN32 int wmain(...) { #else int main(...) { #endif` or `#ifdef X } #endif` leave tree-sitter
an unbalanced body and an ERROR node that can swallow the rest of the file. `first_branches` blanks
every branch but the first taken one (as a build with the first choices would see it), keeping each
byte's offset and line, so the caller can parse both and keep the reading with fewer errors.
"""

from __future__ import annotations

import re

from tree_sitter import Node

_CONDITIONAL = re.compile(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
_DIRECTIVE_LINE = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*#[ \t]*(?:if|elif|else|endif)\b[^\r\n]*", re.M)
_NEVER = re.compile(rb"\s*0\s*(?:/[*/].*)?")  # `#if 0`, `#if 0 /* old */`
_LINE_TEXT = re.compile(rb"[^\r\n]")


def _spaces(m: re.Match) -> bytes:
    return b" " * (m.end() - m.start())


def without_conditionals(src: bytes) -> bytes:
    """`src` with each `#if`/`#elif`/`#else`/`#endif` line turned to spaces (same length, same lines)."""
    return _DIRECTIVE_LINE.sub(_spaces, src) if b"#" in src else src


def first_branches(src: bytes) -> bytes:
    """C source with the preprocessor's conditional lines, and every branch but the first taken one
    (`#if 0` is never taken), blanked: the same length and lines, read as if that branch were built."""
    out, stack = [], []  # per open conditional: [this branch is kept, a branch was kept]
    directive = False  # a conditional line continued with a backslash
    for line in src.splitlines(keepends=True):
        body = line.rstrip(b"\r\n")
        m = None if directive else _CONDITIONAL.fullmatch(body)
        if m:
            word, rest = m[1], m[2]
            if word in (b"if", b"ifdef", b"ifndef"):
                keep = not (word == b"if" and _NEVER.fullmatch(rest))
                stack.append([keep, keep])
            elif word == b"endif":
                if stack:
                    stack.pop()
            elif stack:  # elif, else
                frame = stack[-1]
                frame[0] = not frame[1] and not (word == b"elif" and _NEVER.fullmatch(rest))
                frame[1] = frame[1] or frame[0]
        blank = m is not None or directive or not all(frame[0] for frame in stack)
        directive = (m is not None or directive) and body.endswith(b"\\")
        out.append(_LINE_TEXT.sub(b" ", line) if blank else line)
    return b"".join(out)


def error_size(node: Node) -> int:
    """Bytes of a tree under ERROR nodes, one per missing token."""
    if node.type == "ERROR":
        return max(node.end_byte - node.start_byte, 1)
    if node.is_missing:
        return 1
    return sum(error_size(c) for c in node.children if c.has_error)
