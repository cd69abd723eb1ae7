"""Which conversations read or edited a file, and what did the user ask? One graph query.

Over the conversation graph (`ltm.memory.conversations`): agent turns -[TOOL_USE]-> FileVersion
-[VERSION_OF]-> File, -[AT_COMMIT]-> Commit, and the user turns of the same conversation before
each agent turn (`MemoryTurn` properties on Memory). The file is named as the linker names files:
a path matches when its trailing components equal the other's (`auth.py`, `app/auth.py` and
`/home/ada/svc/app/auth.py` all name `app/auth.py`).
"""

from __future__ import annotations

from typing import Any, Literal

from ltm.errors import LtmError
from ltm.memory.linking import normalize_path

Action = Literal["edit", "read", "any"]
ACTIONS: tuple[str, ...] = ("edit", "read", "any")

_QUERY = """
MATCH (a:Memory)-[t:TOOL_USE]->(v:FileVersion)
WHERE v.path ENDS WITH $name AND t.action IN $actions
OPTIONAL MATCH (v)-[:VERSION_OF]->(f:File)
OPTIONAL MATCH (v)-[:AT_COMMIT]->(k:Commit)
OPTIONAL MATCH (u:Memory)
WHERE u.conversation_id = a.conversation_id AND u.role = 'user' AND u.turn < a.turn
RETURN a.conversation_id, a.id, a.turn, t.tool, t.action, v.id, v.path, v.blob_id, f.id, f.path, k.sha,
       u.id, u.turn, u.content
"""


def _same_file(wanted: list[str], path: str | None) -> bool:
    comps = normalize_path(path or "")
    n = min(len(wanted), len(comps))
    return n > 0 and wanted[-n:] == comps[-n:]


def conversations_for_file(view: Any, file: str, action: Action = "edit") -> list[dict[str, Any]]:
    """The conversations whose agent turns used `file` (`edit`, `read` or `any`), with what the user asked.

    One entry per conversation, by conversation id: `conversation_id`; `uses` (turn, memory_id, tool,
    action, path as the tool named it, file = the File id at HEAD or None, blob_id, commits whose
    blob it equals, asked = the last user turn before it); `user_turns` (turn, memory_id, content)
    before the last use, in order. `view` is a `GraphView` (its `run`).
    """
    if action not in ACTIONS:
        raise LtmError(f"action {action!r} is not one of {', '.join(ACTIONS)}")
    wanted = normalize_path(file)
    if not wanted:
        raise LtmError(f"{file!r} names no file: pass a path such as app/auth.py or auth.py")
    actions = ["edit", "read"] if action == "any" else [action]
    rows = view.run(_QUERY, {"name": wanted[-1], "actions": actions})
    convs: dict[str, dict[str, Any]] = {}
    for cid, mid, turn, tool, act, vid, vpath, blob, fid, fpath, sha, uid, uturn, ucontent in rows:
        if not (_same_file(wanted, fpath) or (fpath is None and _same_file(wanted, vpath))):
            continue
        conv = convs.setdefault(cid, {"conversation_id": cid, "uses": {}, "user_turns": {}})
        use = conv["uses"].setdefault((turn, mid, vid, tool, act), {
            "turn": turn, "memory_id": mid, "tool": tool, "action": act, "path": vpath, "file": fid,
            "blob_id": blob, "commits": set(), "asked": None, "_asked_turn": -1})
        if sha:
            use["commits"].add(sha)
        if uid is not None:
            conv["user_turns"][uturn] = {"turn": uturn, "memory_id": uid, "content": ucontent}
            if uturn > use["_asked_turn"]:
                use["_asked_turn"], use["asked"] = uturn, ucontent
    out = []
    for cid in sorted(convs):
        conv = convs[cid]
        uses = sorted(conv["uses"].values(), key=lambda u: (u["turn"], u["path"] or "", u["tool"] or ""))
        for u in uses:
            u["commits"] = sorted(u["commits"])
            del u["_asked_turn"]
        out.append({"conversation_id": cid, "uses": uses,
                    "user_turns": [conv["user_turns"][t] for t in sorted(conv["user_turns"])]})
    return out
