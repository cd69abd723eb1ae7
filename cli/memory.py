"""`ltm memory import|add`: agent memories into the home."""

from __future__ import annotations

import json

import click

from cli.app import main
from cli.errors import fail, user_errors
from cli.options import emit, home_option
from ltm.errors import LtmError
from ltm.home import Home
from ltm.memory.sources import JSONL_SHAPE


FORMAT_SHAPES = {
    "jsonl": "A jsonl line is " + JSONL_SHAPE + ".",
    "tracemem": 'A tracemem line is a message: {"role": "user"|"assistant", "content": "..." or a list of blocks, '
                '"timestamp": ..., "session_id": ...}; tool_use blocks name the files they read or edit.',
    "amplihack": "An amplihack source is the Kuzu database of amplihack's memory (SemanticMemory, EpisodicMemory, ... tables).",
    "docs": "A docs source is a Markdown or reStructuredText file, or a folder of them: one memory per section.",
}


@main.group(help="Agent memories: import sources into the home; they are linked to code on the next ingest.")
def memory() -> None:
    pass


@memory.command("import", help="Import memories from FILE into the home's lake. A bad line is reported with its "
                "number and skipped; the rest loads. Formats: jsonl (the LTM format), tracemem (conversation "
                "export), amplihack (Kuzu database, read-only), docs (a Markdown/reST file, one memory per heading).")
@click.argument("file", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["jsonl", "tracemem", "amplihack", "docs"]), default="jsonl",
              show_default=True, help="Format of FILE.")
@click.option("--once", is_flag=True, help="Import now only; by default every later ingest re-reads FILE.")
@click.option("--namespace", default=None, help="Namespace of the entries that name none (default: shared, seen by "
              "every query); a query in another namespace never sees them.")
@click.option("--agent", "agent_id", default=None, help="agent_id of the entries that name none.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def memory_import(file: str, fmt: str, once: bool, namespace: str | None, agent_id: str | None, as_json: bool,
                  home: str | None) -> None:
    from ltm.memory.store import import_memories, register_source

    h = Home.resolve(home).create()
    report = import_memories(h, file, fmt, namespace, agent_id).to_dict()
    if not report["loaded"] and not report["expired"]:
        why = "; ".join(f"line {b['line']}: {b['error']}" for b in report["bad_lines"][:3]) or "the file holds no memory"
        fail(f"no memory loaded from {file} ({report['skipped']} bad lines): {why}. {FORMAT_SHAPES[fmt]}", "input")
    if not once:
        register_source(h, file, fmt, namespace, agent_id)
    for bad in report["bad_lines"] if not as_json else []:
        click.echo(f"  line {bad['line']}: {bad['error']}", err=True)
    emit(report, as_json, lambda r: f"imported {r['loaded']} memories from {file} ({r['skipped']} bad lines "
          "skipped); run `ltm ingest` to embed them and link them to the code")


@memory.command("add", help="Store one memory online: searchable and in the graph at once, linked to the code "
                "it names. Prints its vector_id and graph_entity_id.")
@click.argument("text")
@click.option("--metadata", "metadata", default=None,
              help='JSON object of the LTM format, e.g. \'{"file_path": "app/auth.py", "category": "guideline"}\'.')
@click.option("--namespace", default=None, help="The memory's namespace (default: shared, seen by every query).")
@click.option("--agent", "agent_id", default=None, help="The agent storing it (its agent_id).")
@click.option("--private", "private", is_flag=True, help="Seen only by queries with the same --agent.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def memory_add(text: str, metadata: str | None, namespace: str | None, agent_id: str | None, private: bool,
               as_json: bool, home: str | None) -> None:
    from ltm.query import HybridLTM

    try:
        md = json.loads(metadata) if metadata else {}
    except json.JSONDecodeError as e:
        raise LtmError(f"--metadata is not valid JSON ({e.msg}): pass a JSON object") from e
    except RecursionError as e:
        raise LtmError("--metadata is nested too deeply: pass a JSON object of plain fields") from e
    if not isinstance(md, dict):
        raise LtmError("--metadata must be a JSON object, e.g. '{\"file_path\": \"app/auth.py\"}'")
    given = {"namespace": namespace, "agent_id": agent_id, "private": private or None}
    out = HybridLTM(home).add(text, {**md, **{k: v for k, v in given.items() if v is not None}})
    emit(out, as_json, lambda o: f"{o['graph_entity_id']}  {o['vector_id']}  links={o['links']}"
          + ("" if o["in_graph"] else "  (in the graph after the next ingest)")
          + "".join(f"\n  link error: {e}" for e in o["link_errors"]))


@memory.command("sources", help="The memory sources every ingest re-reads (registered by `ltm memory import` "
                "without --once); --remove PATH stops re-reading one (what it loaded stays).")
@click.option("--remove", "remove", default=None, metavar="PATH", help="Stop re-reading the source at PATH.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def memory_sources(remove: str | None, as_json: bool, home: str | None) -> None:
    from ltm.memory.store import registered_sources, unregister_source

    h = Home.resolve(home).require()
    if remove is not None:
        removed = unregister_source(h, remove)
        if not removed:
            raise LtmError(f"no registered memory source at {remove}: `ltm memory sources` lists them")
        for entry in removed:
            click.echo(f"removed {entry}", err=True)
    rows = [{"format": fmt, "path": path} for fmt, path in registered_sources(h)]
    emit(rows, as_json, lambda rs: "\n".join(f"{r['format']:<10} {r['path']}" for r in rs)
         or "no registered memory sources")
