"""Annotation macros C and C++ write around a declaration, which the grammars cannot parse.

A library exports a class with a macro between the keyword and the name (`class LEVELDB_EXPORT DB :
public Base {`), which tree-sitter reads as a function `DB` returning a class `LEVELDB_EXPORT`; Clang's
thread-safety annotations follow a declarator (`void Get() LOCKS_EXCLUDED(mu_);`, `Version* v_
GUARDED_BY(mu_);`, `explicit Lock(Mutex* mu) EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {`), which leaves
an ERROR that costs the field, the method or the rest of the class body. `without_annotation_macros`
turns such all-caps words to spaces: every byte keeps its offset and line, and names, signatures and
text are still read from the file itself.
"""

from __future__ import annotations

import re

_MACRO = rb"[A-Z][A-Z0-9_]*[A-Z0-9_]"

# `class LEVELDB_EXPORT DB : public Base {`, `struct GTEST_API_ Foo final {`: all-caps words between the
# keyword and the name of a class that is defined here
_CLASS_MACROS = re.compile(
    rb"\b(?:class|struct|union)((?:[ \t]+" + _MACRO + rb")+)(?=[ \t]+[A-Za-z_]\w*(?:::\w+)*"
    rb"[ \t\r\n]*(?:final\b[ \t\r\n]*)?(?::[^:]|\{))")

# `f() LOCKS_EXCLUDED(mu) {`, `f() const NO_THREAD_SAFETY_ANALYSIS;`, `int n_ GUARDED_BY(mu);`: a macro after
# a parameter list (with or without arguments), or with arguments after a variable's name, that ends
# the declarator (`;`, `{`, `=`, `,`, an initializer list's `:`, or another such macro)
_AFTER_PARAMETERS = re.compile(
    rb"(\)|\b(?:const|override|final|noexcept))(\s*)(" + _MACRO + rb"(?:\([^()\n]*\))?)"
    rb"(?=\s*(?:[;{=,]|:(?!:)|" + _MACRO + rb"\b))")
_AFTER_NAME = re.compile(
    rb"\b([a-z_]\w*)([ \t]+)(" + _MACRO + rb"\([^()\n]*\))(?=\s*(?:[;=]|" + _MACRO + rb"\b))")
# words before a macro's call that make it a statement or an expression, not an annotation
_NOT_A_NAME = frozenset(
    b"return case else do new delete throw sizeof goto typedef using co_return co_yield co_await operator "
    b"void int char bool float double long short unsigned signed auto static extern inline virtual explicit "
    b"friend constexpr struct class union enum typename template volatile register mutable define".split())
_CONTROL = frozenset(b"if while for switch catch return sizeof alignof decltype".split())


def _blank(text: bytearray, start: int, end: int) -> None:
    text[start:end] = b" " * (end - start)


def _opening(src: bytes, close: int) -> int | None:
    """Where the `(` that the `)` at `close` closes stands (within 4 KiB), or None."""
    depth = 0
    for i in range(close, max(-1, close - 4096), -1):
        c = src[i]
        if c == 41:  # )
            depth += 1
        elif c == 40:  # (
            depth -= 1
            if depth == 0:
                return i
    return None


def _word_before(src: bytes, at: int) -> bytes:
    m = re.search(rb"(\w+)\s*$", src[max(0, at - 64):at])
    return m[1] if m else b""


def without_annotation_macros(src: bytes) -> bytes:
    """`src` with export and thread-safety annotation macros turned to spaces (same length, same lines)."""
    if not re.search(_MACRO, src):
        return src
    out = bytearray(src)
    for m in _CLASS_MACROS.finditer(src):
        _blank(out, m.start(1), m.end(1))
    for _ in range(3):  # `f() A(x) B(y) {`: each pass blanks the first macro left after the list
        text, found = bytes(out), False
        for m in _AFTER_PARAMETERS.finditer(text):
            if m[1] == b")":
                opening = _opening(text, m.start(1))
                if opening is None or _word_before(text, opening) in _CONTROL or (
                        re.fullmatch(_MACRO, _word_before(text, opening))):
                    continue  # `if (x) LOG(y);`, `TEST(A, B) FOO(...)`: a statement, not an annotation
            _blank(out, m.start(3), m.end(3))
            found = True
        for m in _AFTER_NAME.finditer(text):
            if m[1] not in _NOT_A_NAME:
                _blank(out, m.start(3), m.end(3))
                found = True
        if not found:
            break
    return bytes(out)
