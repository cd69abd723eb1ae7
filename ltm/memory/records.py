"""Memory entries as lake rows: one normalised shape for every source.

Imported memories (JSON Lines, TraceMem, amplihack, documentation files) live in the lake's
pseudo-partition `repo=memories` (`MEMORY_PARTITION`), never a repository partition: they are
persisted there so the backfill can relink every historical memory. Documentation memories mined
from a repository during ingest live in that repository's partition instead.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from ltm import ids
from ltm.errors import LtmError
from ltm.visibility import check_name

MEMORY_PARTITION = "memories"
"""Lake partition key of imported and online memories and of every memory link."""


class MemoryType(str, Enum):
    """The cognitive kind of a memory (the seed schema's five types)."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"
    WORKING = "working"
    SENSORY = "sensory"  # what an agent just perceived (a tool output, a screen): short-lived, expires


class MemoryInputError(LtmError):
    """A memory entry is malformed (the line is skipped, the others load)."""


@dataclass
class ImportReport:
    """What an import loaded and which lines it skipped (1-based line number, reason)."""

    source: str
    loaded: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)
    expired: int = 0  # entries left out because their expires_at has passed (ltm.memory.expiry)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "loaded": self.loaded, "skipped": len(self.skipped), "expired": self.expired,
            "bad_lines": [{"line": n, "error": e} for n, e in self.skipped],
        }


def parse_time(value: Any, what: str) -> datetime | None:
    """ISO 8601 text or epoch seconds to an aware UTC datetime; None stays None."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value), tz=timezone.utc)
        if isinstance(value, str):
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError, OSError) as e:
        raise MemoryInputError(f"{what} {value!r} is not an ISO 8601 time: write e.g. 2024-05-01T12:00:00Z") from e
    raise MemoryInputError(f"{what} {value!r} is not an ISO 8601 time: write e.g. 2024-05-01T12:00:00Z")


def memory_type(value: Any, default: MemoryType) -> str:
    """A valid memory_type value, or a clear error naming the allowed ones."""
    if value is None or value == "":
        return default.value
    try:
        return MemoryType(str(value).lower()).value
    except ValueError as e:
        allowed = ", ".join(t.value for t in MemoryType)
        raise MemoryInputError(f"memory_type {value!r} is not one of {allowed}") from e


MAX_LINE = 2**31 - 1  # line numbers are stored as int32 in the graph


def _int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or int(value) != value:
        raise MemoryInputError(f"{what} {value!r} is not a whole number: write a line number such as 12")
    if not 0 <= value <= MAX_LINE:
        raise MemoryInputError(f"{what} {value!r} is out of range: a line number is between 0 and {MAX_LINE}")
    return int(value)


def _text(value: Any, what: str, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise MemoryInputError(f"missing {what}")
        return None
    if not isinstance(value, str):
        raise MemoryInputError(f"{what} must be text, got {type(value).__name__}")
    if required and not value.strip():
        raise MemoryInputError(f"{what} is empty")
    return value


def _graph_links(value: Any) -> str | None:
    if value is None or value == []:
        return None
    if not isinstance(value, list) or not all(isinstance(x, dict) and x.get("type") and x.get("target") for x in value):
        raise MemoryInputError("graph_links must be a list of {type, target, properties} objects")
    return json.dumps(value, sort_keys=True)


def _private(value: Any) -> bool | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        raise MemoryInputError(f"private {value!r} must be true or false")
    return value


def _derives_from(value: Any, source: str) -> str | None:
    """`derives_from` as JSON [{id, method, confidence}]: ids of the same source (or full mem: ids),
    as plain ids or {id, method, confidence} objects (method defaults to `import`)."""
    if value is None or value == []:
        return None
    if not isinstance(value, list):
        raise MemoryInputError("derives_from must be a list of memory ids or {id, method, confidence} objects")
    out = []
    for item in value:
        item = {"id": item} if isinstance(item, str) else item
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"].strip():
            raise MemoryInputError(f"derives_from entry {item!r} is not a memory id or an {{id, method, confidence}} object")
        conf = item.get("confidence")
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1):
            raise MemoryInputError(f"derives_from confidence {conf!r} is not a number from 0 to 1")
        target = item["id"] if item["id"].startswith("mem:") else ids.memory_id(source, item["id"])
        out.append({"id": target, "method": str(item.get("method") or "import"),
                    "confidence": float(conf) if conf is not None else None})
    return json.dumps(out, sort_keys=True)


def memory_row(
    source: str,
    mem_id: str,
    content: str,
    *,
    repo: str = MEMORY_PARTITION,
    memory_type_value: Any = None,
    default_type: MemoryType = MemoryType.SEMANTIC,
    metadata: dict[str, Any] | None = None,
    project_id: str | None = None,
) -> dict[str, Any]:
    """The lake row of one memory; raises MemoryInputError naming the bad field."""
    md = metadata or {}
    if not isinstance(md, dict):
        raise MemoryInputError(f"metadata must be an object, got {type(md).__name__}")
    content = _text(content, "content", required=True)  # type: ignore[assignment]
    mem_id = str(_text(mem_id, "id", required=True))
    eid = ids.memory_id(source, mem_id)
    tags = md.get("tags")
    if tags is not None and (not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)):
        raise MemoryInputError(f"tags must be a list of strings, got {tags!r}")
    importance = md.get("importance")
    if importance is not None and (
        isinstance(importance, bool) or not isinstance(importance, (int, float)) or not math.isfinite(importance)
    ):
        raise MemoryInputError(f"importance {importance!r} is not a number (a finite one, e.g. 0.5)")
    category = _text(md.get("category"), "category") or "memory"
    return {
        "id": eid, "repo": repo, "vector_id": ids.vector_id(eid),
        "memory_type": memory_type(memory_type_value or md.get("memory_type"), default_type),
        "category": category, "content": content, "source": source,
        "created_at": parse_time(md.get("created_at"), "created_at"),
        "project_id": _text(project_id if project_id is not None else md.get("project_id"), "project_id"),
        "text": content,
        "file_path": _text(md.get("file_path"), "file_path"),
        "function_name": _text(md.get("function_name"), "function_name"),
        "tags": tags, "importance": float(importance) if importance is not None else None,
        "last_accessed": parse_time(md.get("last_accessed"), "last_accessed"),
        "line_start": _int(md.get("line_start"), "line_start"), "line_end": _int(md.get("line_end"), "line_end"),
        "graph_links": _graph_links(md.get("graph_links")),
        # isolation and expiry (ltm/visibility.py): a missing namespace is filled in where the row is
        # stored (the import's or the add's namespace, else `shared`); default TTLs in ltm/memory/expiry.py
        "agent_id": check_name(md.get("agent_id"), "agent_id", MemoryInputError),
        "namespace": check_name(md.get("namespace"), "namespace", MemoryInputError),
        "private": _private(md.get("private")),  # needs an agent_id, checked by `with_scope`
        "expires_at": parse_time(md.get("expires_at"), "expires_at"),
        "derives_from": _derives_from(md.get("derives_from"), source),
        "conversation": json.dumps(md["conversation"], sort_keys=True) if md.get("conversation") else None,
    }



def with_scope(row: dict[str, Any], namespace: str | None = None, agent_id: str | None = None) -> dict[str, Any]:
    """The row with its namespace (else `namespace`, else `shared`) and agent (else `agent_id`) filled
    in; MemoryInputError for a private memory that still has no agent."""
    from ltm.visibility import SHARED

    row["namespace"] = row.get("namespace") or check_name(namespace, "namespace", MemoryInputError) or SHARED
    row["agent_id"] = row.get("agent_id") or check_name(agent_id, "agent_id", MemoryInputError)
    if row.get("private") and not row["agent_id"]:
        raise MemoryInputError("a private memory needs an agent_id: it is seen only by that agent")
    return row
