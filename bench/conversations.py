"""The conversation graph at scale: a synthetic TraceMem export read, then its graph computed.

    .venv/bin/python bench/conversations.py [--turns 100000] [--files 10000] [--changes 500000]

A conversation is a user turn, an agent turn reading one file (its result: the file's text), an
agent turn writing it (new text) and a user turn; a third of the texts are blobs of the synthetic
history. Timed: reading the export (`read_tracemem`: JSON, turns, git blob ids) against its floor,
`json.loads` of every line; and the graph (`conversation_tables`: turns, MESSAGE, FileVersion,
TOOL_USE, VERSION_OF by the linker's path rule, AT_COMMIT by joining blob ids with `file_changes`).
Prints one JSON object, with the load average, since the machine's 2 cores may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

import polars as pl

from ltm.memory.conversations import conversation_tables
from ltm.memory.linking import CodeIndex
from ltm.memory.records import ImportReport
from ltm.memory.sources import read_tracemem
from ltm.memory.turns import git_blob_id


def write_export(path: Path, turns: int, files: list[str], rnd: random.Random) -> list[tuple[str, str]]:
    """The export (4 turns and 2 tool results per conversation); returns the (file, text) it carries."""
    texts = []
    with open(path, "w", encoding="utf-8") as out:
        for c in range(turns // 4):
            f = rnd.choice(files)
            old, new = f"# {f} v{c}\nx = {c}\n", f"# {f} v{c}\nx = {c + 1}\n"
            texts += [(f, old), (f, new)]
            lines = [
                {"id": "u1", "conversation_id": f"c{c}", "role": "user", "content": f"why is x wrong in {f}?"},
                {"id": "a1", "conversation_id": f"c{c}", "role": "assistant", "content": "reading",
                 "tool_calls": [{"id": f"r{c}", "name": "read_file", "args": {"path": f"/src/proj/{f}"}}]},
                {"role": "tool", "tool_call_id": f"r{c}", "content": old},
                {"id": "a2", "conversation_id": f"c{c}", "role": "assistant", "content": "fixed",
                 "tool_calls": [{"id": f"w{c}", "name": "write_file", "args": {"path": f"/src/proj/{f}", "content": new}}]},
                {"role": "tool", "tool_call_id": f"w{c}", "content": "ok"},
                {"id": "u2", "conversation_id": f"c{c}", "role": "user", "content": "thanks"},
            ]
            out.write("".join(json.dumps(x) + "\n" for x in lines))
    return texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--changes", type=int, default=500_000)
    args = ap.parse_args()
    rnd = random.Random(7)
    paths = [f"pkg{i // 100}/mod{i}.py" for i in range(args.files)]
    code = CodeIndex.build(
        pl.DataFrame({"id": [f"file:bench:{p}" for p in paths], "repo": ["bench"] * len(paths), "path": paths}),
        pl.DataFrame(schema={"id": pl.String, "label": pl.String, "repo": pl.String, "name": pl.String,
                             "qualified_name": pl.String, "file_path": pl.String, "module": pl.String}))
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "conv.jsonl"
        texts = write_export(export, args.turns, paths, rnd)
        started = time.perf_counter()
        with open(export, encoding="utf-8") as f:
            n_lines = sum(1 for line in f if json.loads(line))
        floor = time.perf_counter() - started
        started = time.perf_counter()
        report = ImportReport("bench")
        rows = list(read_tracemem(export, report))
        read = time.perf_counter() - started
    matched = texts[::3]
    blobs = [git_blob_id(t) for _, t in matched] + [f"{i:040x}" for i in range(args.changes - len(matched))]
    changed = [f for f, _ in matched] + [rnd.choice(paths) for _ in range(len(blobs) - len(matched))]
    changes = pl.DataFrame({"commit_id": [f"commit:bench:{i // 20:040x}" for i in range(len(blobs))],
                            "path": changed, "new_blob": blobs})
    memories = pl.DataFrame(rows, infer_schema_length=None).select("id", "project_id", "conversation")
    started = time.perf_counter()
    tables = conversation_tables(memories, code, lambda b: changes.filter(pl.col("new_blob").is_in(b)))
    graph = time.perf_counter() - started
    print(json.dumps({
        "turns": len(rows), "export_lines": n_lines, "bad_lines": len(report.skipped),
        "read_s": round(read, 2), "json_floor_s": round(floor, 2), "read_vs_floor": round(read / floor, 1),
        "graph_s": round(graph, 2), "turns_per_s": round(len(rows) / graph),
        "rows": {k: v.height for k, v in tables.items()}, "files": args.files, "file_changes": len(blobs),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
    }, indent=1))


if __name__ == "__main__":
    main()
