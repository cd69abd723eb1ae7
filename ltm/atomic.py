"""Small files replaced all at once: a reader sees the old content or the new, never half of it.

The pointers readers follow (`graph/CURRENT`, `vectors/model.json`) and the home's JSON files are
written this way: the text goes to a temporary file of its own beside the target, is flushed to
disk, and `os.replace` swaps it in (atomic on POSIX and Windows within one file system).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any


def replace_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (a unique temporary name, so concurrent writers never share one)."""
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def replace_json(path: Path, data: Any) -> None:
    """`data` as indented, key-sorted JSON, written atomically."""
    replace_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
