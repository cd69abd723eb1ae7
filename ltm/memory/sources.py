"""Memory sources: JSON Lines (the seed's LTM format), TraceMem exports, amplihack Kuzu databases.

Each reader yields lake rows (`ltm.memory.records.memory_row`) and records every bad line in an
`ImportReport` with its number and reason: a bad line is skipped, the rest loads.
Documentation files are the fourth source (`ltm.memory.docs`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ltm.errors import LtmError
from ltm.memory.records import ImportReport, MemoryInputError, MemoryType, memory_row
from ltm.memory.turns import role_of, tool_results, turn_record
from ltm.memory.turns import tool_uses as turn_tool_uses

_FILE_KEYS = ("file_path", "path", "filepath", "filename", "notebook_path", "uri", "file")
JSONL_SHAPE = '{"id": "m1", "content": "what to remember", "metadata": {"category": ..., "file_path": ...}} (metadata optional)'
AMPLIHACK_TABLES = {
    "SemanticMemory": MemoryType.SEMANTIC, "EpisodicMemory": MemoryType.EPISODIC,
    "ProceduralMemory": MemoryType.PROCEDURAL, "ProspectiveMemory": MemoryType.PROSPECTIVE,
    "WorkingMemory": MemoryType.WORKING, "SensoryMemory": MemoryType.SENSORY,
}
# amplihack's provenance edges (a memory -> the episodes it was extracted from) -> DERIVES_FROM
AMPLIHACK_DERIVES = ("DERIVES_FROM", "PROCEDURE_DERIVES_FROM")


def _json_lines(path: Path, report: ImportReport) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line; a line that is not an object is reported."""
    try:
        handle = open(path, encoding="utf-8", errors="replace")
    except OSError as e:
        raise LtmError(f"cannot read memory file {path}: {e.strerror}") from e
    with handle:
        for n, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                report.skipped.append((n, f"not valid JSON ({e.msg} at column {e.colno})"))
                continue
            except RecursionError:
                report.skipped.append((n, "JSON nested too deeply: a memory is an object of plain fields"))
                continue
            if not isinstance(obj, dict):
                report.skipped.append((n, f"expected a JSON object, got {type(obj).__name__}"))
                continue
            yield n, obj


def read_jsonl(path: Path, report: ImportReport) -> Iterator[dict[str, Any]]:
    """Entries `{id, content, project_id, metadata: {category, file_path, ..., graph_links}}`."""
    for n, obj in _json_lines(path, report):
        try:
            md = dict(obj.get("metadata") or {}) if isinstance(obj.get("metadata") or {}, dict) else obj["metadata"]
            if isinstance(md, dict) and "graph_links" in obj and "graph_links" not in md:
                md["graph_links"] = obj["graph_links"]
            missing = [f for f in ("id", "content") if obj.get(f) is None]
            if missing:
                near = [k for k in ("text", "body", "memory", "message", "note") if k in obj]
                raise MemoryInputError(
                    f"missing {' and '.join(missing)}: a line is {JSONL_SHAPE}"
                    + (f" (this line has {near[0]!r}: name it \"content\")" if near and "content" in missing else ""))
            yield memory_row(
                "jsonl", str(obj["id"]), obj.get("content"), metadata=md,
                memory_type_value=obj.get("memory_type"), project_id=obj.get("project_id"),
            )
        except MemoryInputError as e:
            report.skipped.append((n, str(e)))
        except (TypeError, ValueError, OverflowError) as e:  # one odd record never stops the others
            report.skipped.append((n, f"unexpected value ({type(e).__name__}: {e})"))


def _file_of(value: Any) -> str | None:
    if isinstance(value, str) and value.startswith("file://"):
        return unquote(urlparse(value).path) or None
    return None


def tool_use_files(tool_input: Any) -> list[str]:
    """File paths a tool use names: `file://` URIs anywhere in its input, or path-like keys."""
    found: list[str] = []

    def walk(v: Any, key: str | None) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, str):
            f = _file_of(v) or (v if key in _FILE_KEYS and v and "\n" not in v else None)
            if f and f not in found:
                found.append(f)

    walk(tool_input, None)
    return found


def _message_parts(obj: dict[str, Any]) -> tuple[str, str, list[tuple[str, Any, str | None]]]:
    """(role, text, [(tool name, tool input, call id)]) of a flat or `message`-nested export line."""
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else obj
    role = str(msg.get("role") or obj.get("role") or obj.get("type") or "")
    content = msg.get("content")
    texts: list[str] = []
    tools: list[tuple[str, Any, str | None]] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                texts.append(str(block.get("text") or ""))
            elif isinstance(block, dict) and block.get("type") == "tool_use":
                tools.append((str(block.get("name") or "tool"), block.get("input"), _call_id(block)))
    elif content is not None:
        raise MemoryInputError(f"content must be text or a list of blocks, got {type(content).__name__}")
    calls = obj.get("tool_uses") or obj.get("tool_calls") or []
    if not isinstance(calls, list):
        raise MemoryInputError(f"tool_uses must be a list of objects, got {type(calls).__name__}")
    for call in calls:
        if not isinstance(call, dict):
            raise MemoryInputError("tool_uses must be a list of objects")
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}  # OpenAI's tool_calls
        args = call.get("input", call.get("args", call.get("arguments", fn.get("arguments"))))
        if isinstance(args, str) and args.strip().startswith("{"):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                pass
        tools.append((str(call.get("name") or call.get("tool") or fn.get("name") or "tool"), args, _call_id(call)))
    return role, "\n".join(t for t in texts if t.strip()), tools


def _call_id(call: dict[str, Any]) -> str | None:
    return str(call["id"]) if call.get("id") is not None else None


def read_tracemem(path: Path, report: ImportReport) -> Iterator[dict[str, Any]]:
    """User and agent messages as episodic memories; a tool use on a file links the message to it.

    Each message also keeps its turn (`ltm.memory.turns`: conversation, role, index, the files its
    tool calls read or edited and their content's blob id), from which the conversation graph is
    built. Tool results (`tool` messages, `tool_result` blocks) give a read its content; they are no
    turn of their own.
    """
    lines = list(_json_lines(path, report))
    results: dict[str, tuple[str, bool]] = {}
    result_lines = set()
    for n, obj in lines:
        found = tool_results(obj)
        if found is not None:
            results.update(found)
            result_lines.add(n)
    position: dict[str, int] = {}
    for n, obj in lines:
        if n in result_lines:
            continue
        try:
            role, text, tools = _message_parts(obj)
            if role not in ("user", "assistant", "agent", "human", "ai"):
                raise MemoryInputError(f"role {role!r} is not a user or agent message")
            files = [f for _, inp, _ in tools for f in tool_use_files(inp)]
            lines_ = [text] if text else []
            lines_ += [f"{name} {', '.join(tool_use_files(inp))}".strip() for name, inp, _ in tools]
            if not lines_:
                raise MemoryInputError("missing content: a tracemem line is a message {role, content (text or "
                                       "a list of blocks)}")
            conversation = str(obj.get("conversation_id") or obj.get("session_id") or obj.get("sessionId") or path.stem)
            msg_id = obj.get("id") or obj.get("uuid") or obj.get("message_id") or f"line{n}"
            links = [
                {"type": "RELATES_TO_FILE", "target": f,
                 "properties": {"relevance_score": 1.0, "context": "tool_use"}}
                for f in dict.fromkeys(files)
            ]
            index = position.get(conversation, 0)
            md = {
                "category": "conversation", "created_at": obj.get("timestamp") or obj.get("created_at"),
                "file_path": files[0] if files else None, "tags": [role], "graph_links": links or None,
                "conversation": turn_record(conversation, role_of(role) or role, index,
                                            turn_tool_uses(tools, tool_use_files, results)),
            }
            row = memory_row(
                "tracemem", f"{conversation}:{msg_id}", "\n".join(lines_), metadata=md,
                default_type=MemoryType.EPISODIC, project_id=obj.get("project_id"),
            )
            position[conversation] = index + 1
            yield row
        except MemoryInputError as e:
            report.skipped.append((n, str(e)))
        except (TypeError, ValueError, OverflowError) as e:  # one odd record never stops the others
            report.skipped.append((n, f"unexpected value ({type(e).__name__}: {e})"))
    report.skipped.sort(key=lambda s: s[0])


def read_amplihack(path: Path, report: ImportReport) -> Iterator[dict[str, Any]]:
    """Rows of an amplihack memory database (Kuzu), opened read-only; a bad row is reported."""
    from ltm.graph.engine import open_database, query

    if not path.exists():
        raise LtmError(f"amplihack database {path} does not exist: pass the path of its Kuzu database")
    rows: list[tuple[str, int, dict[str, Any]]] = []
    derived: dict[str, list[dict[str, Any]]] = {}
    try:
        with open_database(path, read_only=True, buffer_pool_mb=64, engine_name="kuzu") as conn:
            tables = {r[0] for r in query(conn, "CALL show_tables() RETURN name")}
            for label in (t for t in AMPLIHACK_TABLES if t in tables):
                for i, (node,) in enumerate(query(conn, f"MATCH (m:{label}) RETURN m"), start=1):
                    rows.append((label, i, node))
            for rel in (t for t in AMPLIHACK_DERIVES if t in tables):
                for src, dst, props in query(conn, f"MATCH (s)-[r:{rel}]->(e) RETURN s, e, r"):
                    _add_derivation(derived, rel, src, dst, props)
    except LtmError as e:
        raise LtmError(f"{path} is not a readable amplihack (Kuzu) database: {e}") from e
    if not rows and not report.skipped:
        report.skipped.append((0, f"no {'/'.join(AMPLIHACK_TABLES)} rows found"))
    for label, i, node in rows:
        try:
            raw_md = node.get("metadata")
            md = json.loads(raw_md) if isinstance(raw_md, str) and raw_md.strip() else (raw_md or {})
            if not isinstance(md, dict):
                raise MemoryInputError("metadata is not a JSON object")
            md = dict(md)
            md.setdefault("created_at", node.get("created_at").isoformat() if hasattr(node.get("created_at"), "isoformat") else node.get("created_at"))
            concept = node.get("concept")
            if concept:
                md["tags"] = list(md.get("tags") or []) + [str(concept)]
            key = _amplihack_id(node)
            if key is None:
                raise MemoryInputError("missing memory_id")
            if node.get("agent_id") and not md.get("agent_id"):
                md["agent_id"] = str(node["agent_id"])
            if key in derived and "derives_from" not in md:
                md["derives_from"] = derived[key]
            yield memory_row(
                "amplihack", key, node.get("content"), metadata=md,
                default_type=AMPLIHACK_TABLES[label], project_id=node.get("agent_id") or md.get("project_id"),
            )
        except (MemoryInputError, json.JSONDecodeError) as e:
            report.skipped.append((i, f"{label} row {i}: {e}"))


def _amplihack_id(node: dict[str, Any]) -> str | None:
    """An amplihack node's key: `memory_id` (its memory store) or `node_id` (its cognitive memory)."""
    key = node.get("memory_id") if node.get("memory_id") is not None else node.get("node_id")
    return None if key is None else str(key)


def _add_derivation(out: dict[str, list[dict[str, Any]]], rel: str, src: dict[str, Any], dst: dict[str, Any],
                    props: dict[str, Any]) -> None:
    """Record one amplihack provenance edge as the source memory's `derives_from` entry; the
    confidence is the edge's, else the derived memory's own (`confidence`, `confidence_score`)."""
    s, d = _amplihack_id(src), _amplihack_id(dst)
    if s is None or d is None:
        return
    conf = next((c for c in (props.get("confidence"), src.get("confidence"), src.get("confidence_score"))
                 if isinstance(c, (int, float)) and not isinstance(c, bool) and 0 <= c <= 1), None)
    out.setdefault(s, []).append({"id": d, "method": f"amplihack:{rel.lower()}", "confidence": conf})
