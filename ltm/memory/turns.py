"""Conversation turns of a TraceMem export: what each tool call did to which file, and with what content.

TraceMem's message model (tracemem-core): user and assistant messages; an assistant message carries
tool calls `{id, name, args}`; the result of a call comes back later as a `tool` message with its
`tool_call_id` (Claude Code's transcripts: a `tool_result` block `{tool_use_id, content}` in a user
line). A file a call names becomes a *version*: its path and, when the export carries the file's
whole text, git's blob id of that text (so the version can be matched to a commit of the history).

- An **edit** (the tool's name says edit, write, create, patch, replace, insert, update, delete,
  move or rename) carries the text when its input has the whole file (`content`, `file_text`,
  `new_content`) or its result does (Claude Code's `toolUseResult`: `originalFile` with the edit
  applied, a write's `content`); a diff-style edit without either keeps the path alone.
- A **read** (any other tool naming a file) takes the text of its result, when the export has one
  (Claude Code: `toolUseResult.file.content` of a whole-file read, not the numbered block text).
- A call naming several files keeps their paths alone: one result cannot be any one file's text.

The turn record (`turn_record`) is stored with the memory (lake column `conversation`, JSON) and is
all `ltm.memory.conversations` needs to rebuild the conversation graph.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

EDIT_TOOL = re.compile(r"(?i)edit|write|creat|patch|replac|insert|updat|delet|remov|move|renam|apply|save")
CONTENT_KEYS = ("content", "file_text", "new_content")
USER_ROLES = ("user", "human")
AGENT_ROLES = ("assistant", "agent", "ai")


def git_blob_id(text: str) -> str:
    """git's blob id of a text (UTF-8): sha1 of `blob <size>\\0<bytes>`, what `git hash-object` prints."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def action_of(tool: str) -> str:
    """`edit` when the tool's name says it changes a file, else `read`."""
    return "edit" if EDIT_TOOL.search(tool or "") else "read"


def role_of(raw: str) -> str | None:
    """`user` or `agent` for a message role (user/human, assistant/agent/ai), else None."""
    r = (raw or "").lower()
    return "user" if r in USER_ROLES else "agent" if r in AGENT_ROLES else None


def _text_of(content: Any) -> str | None:
    """A tool result's text: a string, or the text blocks of a list; None when it has none."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b if isinstance(b, str) else b.get("text") for b in content
                 if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")]
        texts = [p for p in parts if isinstance(p, str)]
        return "".join(texts) if texts else None
    return None


def _whole_file(result: Any) -> str | None:
    """The whole file a Claude Code `toolUseResult` carries: a Read of the whole file (`file.content`),
    an Edit (`originalFile` with `oldString` replaced by `newString`), a Write (`content`); else None."""
    if not isinstance(result, dict):
        return None
    f = result.get("file")
    if isinstance(f, dict) and isinstance(f.get("content"), str):
        whole = f.get("startLine") in (None, 0, 1) and (f.get("numLines") is None or f.get("numLines") == f.get("totalLines"))
        return f["content"] if whole else None
    old, new, original = result.get("oldString"), result.get("newString"), result.get("originalFile")
    if isinstance(old, str) and isinstance(new, str) and isinstance(original, str) and old in original:
        return original.replace(old, new) if result.get("replaceAll") else original.replace(old, new, 1)
    if result.get("type") in ("create", "update") and isinstance(result.get("content"), str):
        return result["content"]
    return None


def tool_results(obj: dict[str, Any]) -> dict[str, tuple[str, bool]] | None:
    """The tool results a line carries (call id -> (text, whether it is the whole file)), or None
    when it is no result line.

    A result line is a `tool` message with `tool_call_id`, or a message whose content is only
    `tool_result` blocks; such a line is no turn of its own. A Claude Code line's `toolUseResult`
    (`_whole_file`) wins over the block's text, which numbers the lines of a read.
    """
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else obj
    role = str(msg.get("role") or obj.get("role") or obj.get("type") or "").lower()
    call_id = msg.get("tool_call_id") or obj.get("tool_call_id") or msg.get("tool_use_id")
    if role == "tool" and call_id is not None:
        text = _text_of(msg.get("content"))
        return {str(call_id): (text, False)} if text is not None else {}
    content = msg.get("content")
    if isinstance(content, list) and content and all(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        out = {}
        for b in content:
            text = _text_of(b.get("content"))
            if b.get("tool_use_id") is not None and text is not None and not b.get("is_error"):
                out[str(b["tool_use_id"])] = (text, False)
        structured = obj.get("toolUseResult")
        whole = _whole_file(structured)
        if len(content) == 1 and str(content[0].get("tool_use_id")) in out:
            key = str(content[0]["tool_use_id"])
            if whole is not None:
                out[key] = (whole, True)
            elif isinstance(structured, dict) and isinstance(structured.get("file"), dict):
                del out[key]  # part of a file (offset, limit): its text is not the file's
        return out
    return None


def _input_text(tool_input: Any) -> str | None:
    if isinstance(tool_input, dict):
        for k in CONTENT_KEYS:
            if isinstance(tool_input.get(k), str):
                return tool_input[k]
    return None


def tool_uses(calls: list[tuple[str, Any, str | None]], files_of,
              results: dict[str, tuple[str, bool]]) -> list[dict[str, Any]]:
    """One entry per (tool call, file it names): `{id, tool, action, path, blob}`.

    `calls` are (tool name, input, call id); `files_of(input)` lists the paths an input names;
    `results` is `tool_results`' (see the module doc for which text a version takes).
    """
    out = []
    for name, tool_input, call_id in calls:
        paths = files_of(tool_input)
        action = action_of(name)
        text, whole = results.get(call_id, (None, False)) if call_id else (None, False)
        if len(paths) != 1:
            text = None
        elif action == "edit":
            given = _input_text(tool_input)
            text = given if given is not None else text if whole else None
        for path in paths:
            out.append({"id": call_id, "tool": name, "action": action, "path": path,
                        "blob": git_blob_id(text) if text is not None else None})
    return out


def turn_record(conversation: str, role: str, index: int, uses: list[dict[str, Any]]) -> dict[str, Any]:
    """What the memory keeps of its turn (lake column `conversation`)."""
    return {"conversation": conversation, "role": role, "index": index, "tools": uses}
