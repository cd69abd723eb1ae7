"""Which files are not parsed, and why: binary, too large, generated or minified.

The reason is kept on the File row (`skip_reason`) and counted in the stage's metadata.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

MAX_FILE_BYTES = 1_000_000
_GENERATED_NAMES = re.compile(
    r"(_pb2(_grpc)?\.pyi?|\.pb\.go|_generated\.go|\.min\.(js|mjs)|\.bundle\.js|\.g\.cs|\.designer\.cs|\.generated\.\w+)$",
    re.I,
)
_GENERATED_MARK = re.compile(
    rb"@generated|code generated .{0,80}do not edit|auto-?generated|this file (is|was) generated", re.I
)


def skip_reason(path: str, size: int, src: bytes | None, max_file_bytes: int = MAX_FILE_BYTES) -> str | None:
    """`too_large`, `binary`, `generated`, `minified`, or None for a file to parse.

    `src` may be None when the size alone decides (the blob is then never read).
    """
    if size > max_file_bytes:
        return "too_large"
    if _GENERATED_NAMES.search(PurePosixPath(path).name):
        return "generated"
    if src is None:
        return None
    if b"\0" in src[:8192]:
        return "binary"
    head = b"\n".join(src[:4096].split(b"\n")[:10])
    if _GENERATED_MARK.search(head):
        return "generated"
    if len(src) > 4096:
        lines = src.count(b"\n") + 1
        if len(src) / lines > 300 or max(len(line) for line in src.split(b"\n", 50)[:50]) > 5000:
            return "minified"
    return None
