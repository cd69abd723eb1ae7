"""The text each code entity is embedded with: syntax-aware chunks cut to the model's budget.

A function's chunk is its location, signature, docstring or leading comment and body; a class's
is its header and outline (its methods' bodies replaced by their signatures: each method is
embedded separately); a module's lists what it defines. all-MiniLM-L6-v2 reads at most 256 word
pieces. Extraction does not load the model's tokenizer (it is in the optional `local` extra), so
we cut at CHUNK_CHARS characters on a line boundary: an approximation. Measured with the real
tokenizer on requests, gin, gson and ky, code runs 2.65-3.2 characters per word piece, so 640
characters stay within about 250 word pieces (see BENCHMARKS.md for the share that still overflows).
"""

from __future__ import annotations

CHUNK_CHARS = 640
DOC_CHARS = 200  # of a doc comment put before the source: the body keeps most of the budget


def doc_lead(doc: str) -> str:
    """A doc comment as a chunk carries it: its prose without tag lines (`@param`, `@return`), cut to
    DOC_CHARS, so a long JSDoc block does not push the body (and the calls in it) out of the chunk."""
    prose = "\n".join(line for line in doc.splitlines() if not line.lstrip().startswith("@"))
    return cut(prose, DOC_CHARS)


def cut(text: str, limit: int = CHUNK_CHARS) -> str:
    """`text` cut to at most `limit` characters, at the last line break before the limit."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    nl = head.rfind("\n")
    return head[: nl if nl > limit // 2 else limit].rstrip()


def function_chunk(path: str, d: dict) -> str:
    """Location, then the doc comment when it is not part of the body, then the source."""
    parts = [f"{d['qualified_name']} ({path})"]
    doc = d.get("docstring")
    if doc and doc not in d["text"] and (lead := doc_lead(doc)):
        parts.append(lead)
    parts.append(d["text"])
    return cut("\n".join(parts))


def class_chunk(path: str, d: dict) -> str:
    """Location, doc comment, and the class with its methods' bodies elided."""
    parts = [f"{d.get('class_kind') or 'class'} {d['qualified_name']} ({path})"]
    doc = d.get("docstring")
    outline = d.get("outline") or d["text"]
    if doc and doc not in outline and (lead := doc_lead(doc)):
        parts.append(lead)
    parts.append(outline)
    return cut("\n".join(parts))


def module_chunk(name: str, paths: list[str], top_names: list[str]) -> str:
    """A module's name, files and top-level definitions."""
    text = f"module {name} ({', '.join(paths[:5])}{', ...' if len(paths) > 5 else ''})"
    return cut(text + (f": {', '.join(top_names)}" if top_names else ""))
