"""Conversations as a graph (TraceMem's design), a pure function of (memories, code, history).

From the turn every TraceMem memory keeps (`ltm.memory.turns`, lake column `conversation`):
- `MemoryTurn` (side table of Memory): the turn's `conversation_id`, `role` (user / agent), `turn`;
- `MESSAGE` turn -> next turn of the same conversation (by index), with the conversation and the
  index of the turn it leaves;
- `FileVersion` per (path, blob id) a tool call read or edited (`fver:<path>@<blob>`, or
  `fver:<path>` when the export carried no content) and `TOOL_USE` agent turn -> version, with the
  tool's name, `action` (read / edit) and call id;
- `VERSION_OF` version -> the File(s) at HEAD its path resolves to, by the linker's path rule
  (`CodeIndex.resolve_path`: the most trailing components in common, ties prefer the project);
- `AT_COMMIT` version -> every commit whose change to a file of the same name wrote that blob
  (`file_changes.new_blob`), with the path in that commit.

`write_conversations` recomputes all of it from the whole lake and replaces the tables in the
`memories` partition at once, as the link backfill does, so a re-import or a new commit changes
the graph on the next run and never leaves half of it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ltm.lake import Lake
from ltm.memory.linking import CodeIndex
from ltm.memory.records import MEMORY_PARTITION
from ltm.schema import lake_schema

log = logging.getLogger(__name__)

TABLES = ("MemoryTurn", "MESSAGE", "FileVersion", "TOOL_USE", "VERSION_OF", "AT_COMMIT")
ROLES = ("user", "agent")


@dataclass
class ConversationStats:
    """What the conversation graph holds after a run, and the turns that could not be read."""

    conversations: int = 0
    turns: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    bad_turns: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"conversations": self.conversations, "turns": self.turns, **self.rows,
                "bad_turns": len(self.bad_turns), "bad_turn_sample": self.bad_turns[:10]}


def _turns(memories: pl.DataFrame, bad: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(turns, tool uses) of the memories that keep a turn; a malformed one is named in `bad`."""
    turns, uses = [], []
    has = memories.filter(pl.col("conversation").is_not_null()) if "conversation" in memories.columns else memories.clear()
    for mid, raw, project in has.select("id", "conversation", "project_id").iter_rows():
        try:
            t = json.loads(raw)
            ok = isinstance(t, dict) and isinstance(t.get("conversation"), str) and t.get("role") in ROLES \
                and isinstance(t.get("index"), int) and isinstance(t.get("tools") or [], list)
            if not ok:
                raise ValueError("a turn is {conversation, role: user|agent, index, tools: [...]}")
            tools = t.get("tools") or []
            if not all(isinstance(u, dict) and isinstance(u.get("path"), str) and u["path"] for u in tools):
                raise ValueError("a tool use is {id, tool, action, path, blob}")
            turns.append({"id": mid, "conversation_id": t["conversation"], "role": t["role"], "turn": t["index"]})
            uses += [{"src": mid, "project": project, "path": u["path"], "blob": u.get("blob"),
                      "tool": str(u.get("tool") or "tool"), "action": str(u.get("action") or "read"),
                      "tool_use_id": u.get("id")} for u in tools]
        except (ValueError, TypeError) as e:  # JSONDecodeError is a ValueError
            bad.append(f"{mid}: {e}")
    return turns, uses


def _messages(turns: pl.DataFrame) -> pl.DataFrame:
    chain = turns.sort("conversation_id", "turn", "id").with_columns(
        pl.col("id").shift(-1).over("conversation_id").alias("dst"))
    return chain.filter(pl.col("dst").is_not_null()).select(
        pl.col("id").alias("src"), "dst", "conversation_id", "turn")


def conversation_tables(memories: pl.DataFrame, code: CodeIndex, changes: Callable[[list[str]], pl.DataFrame],
                        stats: ConversationStats | None = None) -> dict[str, pl.DataFrame]:
    """The rows of `TABLES` (without the lake's key columns) from memories (`id`, `project_id`,
    `conversation`) and the code index; `changes(blob ids)` gives the `file_changes` rows (`commit_id`,
    `path`, `new_blob`) that wrote one of those blobs."""
    stats = stats if stats is not None else ConversationStats()
    turn_rows, use_rows = _turns(memories, stats.bad_turns)
    turns = pl.DataFrame(turn_rows, schema={"id": pl.String, "conversation_id": pl.String, "role": pl.String,
                                            "turn": pl.Int64})
    uses = pl.DataFrame(use_rows, schema={"src": pl.String, "project": pl.String, "path": pl.String, "blob": pl.String,
                                          "tool": pl.String, "action": pl.String, "tool_use_id": pl.String})
    version = pl.lit("fver:") + pl.col("path")  # ids.file_version_id, column-wise
    uses = uses.with_columns(
        pl.when(pl.col("blob").is_null()).then(version).otherwise(version + "@" + pl.col("blob")).alias("dst"))
    versions = uses.select(pl.col("dst").alias("id"), "path", pl.col("blob").alias("blob_id"), "project").unique(
        "id", keep="first", maintain_order=True)
    version_of = [(vid, fid) for vid, path, project in versions.select("id", "path", "project").iter_rows()
                  for fid, _, _ in code.resolve_path(path, project)]
    names = versions.filter(pl.col("blob_id").is_not_null()).select(
        "id", "blob_id", pl.col("path").str.replace(r"^.*[/\\]", "").alias("name"))
    blobs = sorted(set(names["blob_id"].to_list()))
    at_commit = (changes(blobs) if blobs else pl.DataFrame(schema={"commit_id": pl.String, "path": pl.String,
                                                                    "new_blob": pl.String})).select(
        pl.col("new_blob").alias("blob_id"), pl.col("path").str.replace(r"^.*/", "").alias("name"),
        pl.col("commit_id").alias("dst"), "path",
    ).join(names, on=["blob_id", "name"], how="inner").select(pl.col("id").alias("src"), "dst", "path").unique()
    stats.turns, stats.conversations = turns.height, turns["conversation_id"].n_unique()
    return {
        "MemoryTurn": turns,
        "MESSAGE": _messages(turns),
        "FileVersion": versions.drop("project"),
        "TOOL_USE": uses.select("src", "dst", "tool", "action", "tool_use_id").unique(maintain_order=True),
        "VERSION_OF": pl.DataFrame(version_of, schema={"src": pl.String, "dst": pl.String}, orient="row").unique(),
        "AT_COMMIT": at_commit.sort("src", "dst"),
    }


_ENDS = {"MESSAGE": ("Memory", "Memory"), "TOOL_USE": ("Memory", "FileVersion"),
         "VERSION_OF": ("FileVersion", "File"), "AT_COMMIT": ("FileVersion", "Commit")}


def write_conversations(lake: Lake, memories: pl.DataFrame, code: CodeIndex) -> ConversationStats:
    """Recompute the conversation graph and replace its tables in the `memories` partition at once.

    `memories`: every Memory row of the lake (`ltm.memory.store.read_memories`); the history's
    `file_changes` are read for the blobs the conversations saw only.
    """
    stats = ConversationStats()

    def changes(blobs: list[str]) -> pl.DataFrame:
        rows = pl.from_arrow(lake.read("file_changes", columns=["commit_id", "path", "new_blob"]))
        return rows.filter(pl.col("new_blob").is_in(blobs))

    frames = conversation_tables(memories, code, changes, stats)
    with lake.write(MEMORY_PARTITION) as w:
        for name in TABLES:
            df = frames[name].with_columns(pl.lit(MEMORY_PARTITION).alias("repo"))
            if name in _ENDS:
                df = df.with_columns(pl.lit(_ENDS[name][0]).alias("src_label"), pl.lit(_ENDS[name][1]).alias("dst_label"))
            schema = lake_schema(name)
            w.write(name, df.select(schema.names).to_arrow().cast(schema))
            stats.rows[name] = df.height
    if stats.bad_turns:
        log.warning("%d conversation turns not read, e.g. %s", len(stats.bad_turns), stats.bad_turns[:3])
    return stats

