"""What a question asks for: a few patterns of the questions coding agents ask, else a plain search.

`parse("what calls parse_header")` -> Intent(kind="callers", subject="parse_header"). The subject
is only ever bound as a query parameter, never written into Cypher or SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

IntentKind = Literal["callers", "callees", "importers", "author", "bugfix", "file_memories", "last_change", "search"]

_NAME = r"[`'\"]?(?P<x>[A-Za-z_][\w.]*?)(?:\(\))?[`'\"]?"
_PATH = r"[`'\"]?(?P<x>[\w.\-/]+?)[`'\"]?"
_PATTERNS: tuple[tuple[IntentKind, re.Pattern[str]], ...] = (
    ("last_change", re.compile(
        rf"\bwho\s+(?:last\s+)?(?:changed|modified|touched|edited|updated)\s+(?:the\s+)?(?:function|method|class)?\s*{_NAME}"
        r"(?:\s+last)?(?:\s+and\s+why)?\s*\??$", re.I)),
    ("callers", re.compile(rf"\b(?:what|who|which\s+\w+)\s+(?:calls|invokes|call)\s+{_NAME}\s*\??$", re.I)),
    ("callers", re.compile(rf"\bcallers\s+of\s+{_NAME}\s*\??$", re.I)),
    ("callees", re.compile(rf"\bwhat\s+does\s+{_NAME}\s+call\s*\??$", re.I)),
    ("callees", re.compile(rf"\bcallees\s+of\s+{_NAME}\s*\??$", re.I)),
    ("importers", re.compile(
        rf"\b(?:what|who|which\s+\w+)\s+(?:uses|use|imports|import|depends\s+on)\s+(?:the\s+)?(?:module|package)?\s*{_PATH}\s*\??$", re.I)),
    ("author", re.compile(r"\bcommits?\s+(?:made\s+|written\s+|authored\s+)?(?:by|from)\s+(?P<x>[^?]+?)\s*\??$", re.I)),
    ("bugfix", re.compile(r"(?:bug|issue)?\s*#(?P<x>\d+)", re.I)),
    ("file_memories", re.compile(
        rf"\b(?:memories|memory|notes?|decisions?)\s+(?:about|on|for|of)\s+(?:the\s+)?(?:file\s+)?{_PATH}\s*\??$", re.I)),
)

_LABEL_WORDS = {
    "function": "Function", "functions": "Function", "method": "Function", "methods": "Function",
    "class": "Class", "classes": "Class", "module": "Module", "modules": "Module",
    "commit": "Commit", "commits": "Commit", "bug": "Bug", "bugs": "Bug",
    "memory": "Memory", "memories": "Memory", "note": "Memory", "notes": "Memory",
}
STOPWORDS = frozenset(
    "a an and are as at be by did do does for from has have how i in is it its of on or that the this to "
    "was were what when where which who whom why with about related relating around into all any last "
    "changed change calls call uses use used fixed fix show find me".split()
) | frozenset(_LABEL_WORDS)

_IDENT = re.compile(r"[A-Za-z_][\w.]*[\w]|[A-Za-z_]")
_PATHLIKE = re.compile(r"[\w.\-]+(?:/[\w.\-]+)+|[\w\-]+\.(?:py|js|ts|tsx|go|java|rs|c|h|cpp|hpp|rb|cs|md)\b")
_BUGREF = re.compile(r"#\d+")


@dataclass(frozen=True)
class Intent:
    """The kind of question, its subject (a name, path, author or bug number) and useful tokens."""

    kind: IntentKind
    subject: str | None = None
    labels: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    bug_refs: tuple[str, ...] = ()
    words: tuple[str, ...] = field(default=())


def _looks_like_code(token: str) -> bool:
    return "_" in token or "." in token or any(c.isupper() for c in token[1:]) or token.endswith("()")


def parse(text: str) -> Intent:
    """The intent of a question; `search` with its names, paths and bug refs when no pattern fits."""
    t = " ".join(text.strip().split())
    kind: IntentKind = "search"
    subject = None
    for k, pat in _PATTERNS:
        m = pat.search(t)
        if m:
            kind, subject = k, m.group("x").strip().strip("`'\"")
            if k == "bugfix" and not re.search(r"\b(fix|fixed|fixes|resolved|solved|closed)\b", t, re.I):
                kind, subject = "search", None
                continue
            break
    lowered = [w.strip("?,.;:!()`'\"").lower() for w in t.split()]
    labels = tuple(dict.fromkeys(_LABEL_WORDS[w] for w in lowered if w in _LABEL_WORDS))
    paths = tuple(dict.fromkeys(_PATHLIKE.findall(t)))
    bug_refs = tuple(dict.fromkeys(_BUGREF.findall(t)))
    rest = _PATHLIKE.sub(" ", t)
    names, words = [], []
    for tok in _IDENT.findall(rest):
        tok = tok.rstrip(".")
        if tok.lower() in STOPWORDS or len(tok) < 2:
            continue
        (names if _looks_like_code(tok) else words).append(tok)
    if subject and kind in ("callers", "callees", "last_change") and subject not in names:
        names.insert(0, subject)
    return Intent(kind, subject, labels, tuple(dict.fromkeys(names)), paths, bug_refs, tuple(dict.fromkeys(words)))
