"""Documentation as memories: Markdown and reStructuredText chunked by heading.

One chunk per heading (its title line and the text up to the next heading of any level); text
before the first heading is a chunk of its own. Headings inside fenced code blocks are text.
A guide (CONTRIBUTING, style, how-to ...) becomes a `guideline` memory, anything else `architecture`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ltm.extract.gitrepo import MISSING
from ltm.memory.records import MemoryType, memory_row

DOC_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".rst": "rst"}
MAX_DOC_BYTES = 1_000_000
_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.<>_])\1{2,}\s*$")
_GUIDE = re.compile(r"contribut|guide|style|howto|how-to|conventions?|rules|checklist", re.IGNORECASE)


@dataclass(frozen=True)
class Chunk:
    """A heading's section: its title (None before the first heading), text and first line."""

    title: str | None
    text: str
    line_start: int
    line_end: int


def doc_format(path: str) -> str | None:
    """`markdown`, `rst` or None by the file extension."""
    return DOC_EXTENSIONS.get(PurePosixPath(path).suffix.lower())


def _headings(lines: list[str], fmt: str) -> Iterator[tuple[int, int, str]]:
    """(first line index, lines the heading takes, title) of every heading."""
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if fmt == "markdown":
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and (m := _ATX.match(line)):
                yield i, 1, m.group(2)
        elif line.strip() and i + 1 < len(lines) and _RST_UNDERLINE.match(lines[i + 1]) \
                and len(lines[i + 1].rstrip()) >= len(line.rstrip()) and not _RST_UNDERLINE.match(line):
            overline = i > 0 and _RST_UNDERLINE.match(lines[i - 1]) is not None
            yield (i - 1 if overline else i), (3 if overline else 2), line.strip()
            i += 1
        i += 1


def chunk_document(text: str, fmt: str) -> list[Chunk]:
    """Split a Markdown or reST document into one chunk per heading."""
    lines = text.splitlines()
    marks = list(_headings(lines, fmt))
    chunks: list[Chunk] = []
    starts = [(0, 0, None)] + marks if not marks or marks[0][0] > 0 else marks
    for k, (start, _size, title) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        body = "\n".join(lines[start:end]).strip()
        if body:
            chunks.append(Chunk(title, body, start + 1, end))
    return chunks


def doc_category(path: str) -> str:
    """`guideline` for guides and rules, else `architecture`."""
    return "guideline" if _GUIDE.search(PurePosixPath(path).name) else "architecture"


def doc_memory_rows(path: str, text: str, repo: str, source_key: str, project_id: str | None = None) -> list[dict[str, Any]]:
    """Memory rows of one document; ids are `mem:docs:<source_key>:<path>#<n>`."""
    fmt = doc_format(path) or "markdown"
    rows = []
    for n, c in enumerate(chunk_document(text, fmt), start=1):
        md = {"category": doc_category(path), "file_path": path, "line_start": c.line_start,
              "line_end": c.line_end, "tags": ["doc"] + ([c.title] if c.title else [])}
        rows.append(memory_row("docs", f"{source_key}:{path}#{n}", c.text, repo=repo, metadata=md,
                               default_type=MemoryType.SEMANTIC, project_id=project_id))
    return rows


def read_doc_file(path: Path, report: Any) -> Iterator[dict[str, Any]]:
    """A Markdown or reST file given to `ltm memory import --format docs`."""
    from ltm.errors import LtmError

    try:
        raw = path.read_bytes()
    except OSError as e:
        raise LtmError(f"cannot read document {path}: {e.strerror}") from e
    if doc_format(path.name) is None:
        raise LtmError(f"{path} is not Markdown or reStructuredText: use a .md, .markdown or .rst file")
    # the absolute path is the memory's file_path: inside an ingested repository it resolves to
    # that repository's File by its trailing components
    absolute = path.resolve().as_posix()
    yield from doc_memory_rows(absolute, raw.decode("utf-8", errors="replace"), "memories", "file")


def repository_docs(repo: Any, repo_key: str, rev: str = "HEAD") -> tuple[list[dict[str, Any]], int]:
    """Memory rows of every Markdown/reST file at `rev` of a repository; (rows, files read)."""
    rows: list[dict[str, Any]] = []
    files = 0
    with repo.blobs() as blobs:
        for entry in repo.tree(rev):
            if doc_format(entry.path) is None or entry.size > MAX_DOC_BYTES:
                continue
            raw = blobs.read(entry.blob) if entry.size != MISSING else None
            if raw is None or b"\0" in raw[:8192]:  # a version the repository cannot give, or binary
                continue
            files += 1
            rows += doc_memory_rows(entry.path, raw.decode("utf-8", errors="replace"), repo_key, repo_key,
                                    project_id=repo_key)
    return rows, files

