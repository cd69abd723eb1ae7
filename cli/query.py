"""`ltm query`, `ltm calls`, `ltm dependents`: questions to the memory."""

from __future__ import annotations

import click

from cli.app import main
from cli.errors import user_errors
from cli.options import emit, home_option
from ltm.home import Home
from ltm.retrieval.strategies import STRATEGIES


@main.command(help="Ask the memory: TEXT is matched by meaning (vectors) and by structure and history (graph).")
@click.argument("text")
@click.option("--strategy", default="parallel", show_default=True,
              type=click.Choice(STRATEGIES),
              help="How to combine the vector and graph halves.")
@click.option("--top-k", default=5, show_default=True, type=click.IntRange(1, 1000), help="Results to return.")
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 2), help="Graph expansion depth.")
@click.option("--no-expand", is_flag=True, help="Skip graph expansion and neighbours.")
@click.option("--repo", default=None, help="Only this repository (its key).")
@click.option("--category", default=None, help="Only this category (function, module, commit_log, guideline, memory, ...).")
@click.option("--path", "path_prefix", default=None, help="Only entries whose file path starts with this prefix.")
@click.option("--since", default=None, help="Only entries dated at or after this ISO date (commits, memories).")
@click.option("--until", default=None, help="Only entries dated at or before this ISO date.")
@click.option("--include-superseded", is_flag=True,
              help="Also show memories a newer one supersedes (after it, marked superseded_by).")
@click.option("--namespace", default=None, help="Ask in this namespace: its memories and the shared ones (default: "
              "shared only); never another namespace's.")
@click.option("--agent", "agent_id", default=None, help="Ask as this agent: its private memories are seen too.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def query(text: str, strategy: str, top_k: int, depth: int, no_expand: bool, repo: str | None, category: str | None,
          path_prefix: str | None, since: str | None, until: str | None, include_superseded: bool,
          namespace: str | None, agent_id: str | None, as_json: bool, home: str | None) -> None:
    from ltm.query import HybridLTM
    from ltm.retrieval.render import render_hits

    filters = {"repo": repo, "category": category, "path_prefix": path_prefix, "since": since, "until": until}
    with HybridLTM(home) as memory:
        hits = memory.query(text, strategy=strategy, top_k=top_k, expand_graph=not no_expand, depth=depth, filters=filters,
                            include_superseded=include_superseded, namespace=namespace, agent_id=agent_id)
    emit(hits, as_json, render_hits)


@main.command(help="What calls a function (or, with --callees, what it calls), from the graph's CALLS edges.")
@click.argument("name")
@click.option("--callees", is_flag=True, help="List what NAME calls instead of its callers.")
@click.option("--repo", default=None, help="Only this repository (its partition key).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def calls(name: str, callees: bool, repo: str | None, as_json: bool, home: str | None) -> None:
    from ltm.graph.read import open_view

    with open_view(Home.resolve(home).graph) as view:
        rows = (view.callees if callees else view.callers)(name, repo)
    other = "callee" if callees else "caller"

    def show(rs: list[dict]) -> str:
        if not rs:
            return f"no resolved {other}s of {name}"
        return "\n".join(f"{r['confidence']:.1f}  {r[other]}  ({r[other + '_file']}:{r[other + '_line']})"
                         f"  -> {r['function']} ({r['function_file']})" if not callees else
                         f"{r['confidence']:.1f}  {r['function']} -> {r[other]}  ({r[other + '_file']}:{r[other + '_line']})"
                         for r in rs)

    emit(rows, as_json, show)


@main.command(help="Which modules depend on module NAME (an internal module or an external package).")
@click.argument("name")
@click.option("--repo", default=None, help="Only this repository (its partition key).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def dependents(name: str, repo: str | None, as_json: bool, home: str | None) -> None:
    from ltm.graph.read import open_view

    with open_view(Home.resolve(home).graph) as view:
        rows = view.dependents(name, repo)
    emit(rows, as_json, lambda rs: "\n".join(f"{r['dependent']}  ({r['dependent_path']})" for r in rs)
          or f"no module depends on {name}")
