"""`ltm stats`, `ltm reconcile`: what the stores hold and whether they agree."""

from __future__ import annotations

import sys

import click

from cli.app import main
from cli.errors import EXIT_CODES, user_errors
from cli.options import emit, home_option
from ltm.home import Home


@main.command(help="Counts of graph nodes and edges by type, and of vector rows.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def stats(as_json: bool, home: str | None) -> None:
    from ltm.graph.read import counts, open_current
    from ltm.vectors import VectorStore

    h = Home.resolve(home).require()
    with open_current(h.graph) as conn:
        nodes, rels = counts(conn)
    data = {"nodes": nodes, "rels": rels, "vectors": VectorStore(h.vectors).count()}
    emit(data, as_json, lambda d: "\n".join(
        [f"{k:<20} {v}" for k, v in d["nodes"].items()]
        + [f"{k:<20} {v}" for k, v in d["rels"].items() if v]
        + [f"{'vectors':<20} {d['vectors']}"]
    ))


@main.command(help="Check that every graph node and vector row link to each other.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def reconcile(as_json: bool, home: str | None) -> None:
    from ltm.memory.journal import recover_home
    from ltm.reconcile import reconcile as run

    h = Home.resolve(home).require()
    recover_home(h)  # an online add a kill interrupted is finished or undone first
    report = run(h.graph, h.vectors).to_dict()
    emit(report, as_json, lambda r: (
        f"ok: {r['ok']}  nodes with vectors: {r['graph_nodes_with_vector']}  vector rows: {r['vector_rows']}  "
        f"coverage: {r['coverage']:.2%}\n" + "\n".join(f"  {k}: {v}" for k, v in r["orphan_counts"].items())
    ))
    if not report["ok"]:
        sys.exit(EXIT_CODES["check"])
