"""The conversation graph at scale: a synthetic TraceMem export read, then its graph computed.

    .venv/bin/python bench/conversations.py [--turns 100000] [--files 10000] [--changes 500000] [--query-memories 300000]

A conversation is a user turn, an agent turn reading one file (its result: the file's text), an
agent turn writing it (new text) and a user turn; a third of the texts are blobs of the synthetic
history. Timed: reading the export (`read_tracemem`: JSON, turns, git blob ids) against its floor,
`json.loads` of every line; and the graph (`conversation_tables`: turns, MESSAGE, FileVersion,
TOOL_USE, VERSION_OF by the linker's path rule, AT_COMMIT by joining blob ids with `file_changes`);
and the one query of `ltm conversations` in a Kuzu build of `--query-memories` turns.
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


def time_query(n_memories: int, n_uses: int = 50) -> dict:
    """`conversations_for_file`'s one query in a Kuzu build of n turns (10 per conversation, user and
    agent alternating) of which `n_uses` edited the asked file: seconds and rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ltm.graph.engine import open_database, query, schema_ddl
    from ltm.graph.view import GraphView
    from ltm.retrieval.conversations import conversations_for_file
    from ltm.schema import graph_columns

    schema = graph_columns("Memory")
    n = n_memories
    cols = {f.name: pa.nulls(n, f.type) for f in schema}
    cols.update({"id": pa.array([f"mem:b:c{i // 10}:{i}" for i in range(n)]), "repo": pa.array(["memories"] * n),
                 "content": pa.array(["a question"] * n), "conversation_id": pa.array([f"c{i // 10}" for i in range(n)]),
                 "role": pa.array(["user" if i % 2 == 0 else "agent" for i in range(n)]),
                 "turn": pa.array([i % 10 for i in range(n)], pa.int64())})
    step = max(1, n // 10 // n_uses) * 10
    uses = pa.table({"src": [f"mem:b:c{(j * step) // 10}:{j * step + 3}" for j in range(n_uses)],
                     "dst": ["fver:app/auth.py"] * n_uses, "tool": ["Edit"] * n_uses, "action": ["edit"] * n_uses,
                     "tool_use_id": ["x"] * n_uses})
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        pq.write_table(pa.table(cols, schema=schema), d / "m.parquet")
        pq.write_table(uses, d / "u.parquet")
        pq.write_table(pa.table({"id": ["fver:app/auth.py"], "repo": ["memories"], "path": ["app/auth.py"],
                                 "blob_id": pa.nulls(1, pa.string())}), d / "v.parquet")
        with open_database(d / "g.kuzu", read_only=False) as conn:
            for stmt in schema_ddl():
                query(conn, stmt)
            query(conn, f"COPY Memory FROM '{d / 'm.parquet'}'")
            query(conn, f"COPY FileVersion FROM '{d / 'v.parquet'}'")
            query(conn, f"COPY TOOL_USE FROM '{d / 'u.parquet'}'")
            started = time.perf_counter()
            found = conversations_for_file(GraphView(conn), "auth.py")
            return {"memories": n, "edits": n_uses, "query_s": round(time.perf_counter() - started, 3),
                    "conversations": len(found)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--changes", type=int, default=500_000)
    ap.add_argument("--query-memories", type=int, default=300_000, help="Memory nodes in the query's graph.")
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
        "query": time_query(args.query_memories),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
    }, indent=1))


if __name__ == "__main__":
    main()
