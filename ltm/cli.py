"""`ltm`: the command line, a thin edge over the library and the Dagster assets.

Every user error becomes one line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from ltm.embed.providers import PROVIDERS
from ltm.errors import EmbeddingError, IssueExportError, LtmError
from ltm.home import Home

def home_option(f: Callable) -> Callable:
    return click.option(
        "--home", "home", type=click.Path(file_okay=False), default=None, envvar="LTM_HOME",
        help="Home directory of the store (default: $LTM_HOME, else ./.ltm).",
    )(f)


_RESOURCE_ERRORS = {  # what the OS, sqlite or Kuzu say when the home cannot be written, and the fix
    "no space left on device": "free some space on its disk (or use another --home) and run again",
    "database or disk is full": "free some space on its disk (or use another --home) and run again",
    "read-only file system": "make the home writable (or use another --home) and run again",
    "readonly database": "make the home writable (or use another --home) and run again",
}


def _chain(e: BaseException) -> list[BaseException]:
    """The error, what Dagster wrapped (`user_exception`) and every cause, without cycles."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [e]
    while todo:
        x = todo.pop(0)
        if x is None or any(x is s for s in seen):
            continue
        seen.append(x)
        todo += [getattr(x, "user_exception", None), x.__cause__, x.__context__]
    return seen


def _user_line(e: BaseException, home: str | None = None) -> str | None:
    """One line for an LtmError or a home that cannot be written, wherever it sits in the chain."""
    chain = _chain(e)
    for x in chain:
        if isinstance(x, LtmError):
            return str(x)
    for x in chain:
        text = str(x).lower()
        for needle, fix in _RESOURCE_ERRORS.items():
            if needle in text:
                where = f" ({x.filename})" if isinstance(x, OSError) and x.filename else ""
                return f"cannot write to the home {Home.resolve(home).root}{where}: {needle}: {fix}"
    return None


def user_errors(f: Callable) -> Callable:
    """Turn LtmError (also when raised inside a Dagster step) and a full or read-only home into
    one clear line and exit 1."""

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except click.ClickException:
            raise
        except Exception as e:  # Dagster wraps errors raised in a step
            line = _user_line(e, kwargs.get("home"))
            if line is None:
                raise
            raise click.ClickException(line) from e

    return wrapper


def _emit(data: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    click.echo(json.dumps(data, indent=2, default=str) if as_json else text(data))


@click.group(help="hybrid-ltm: git repositories as a long-term memory (Kuzu graph + LanceDB vectors).")
@click.version_option(package_name="hybrid-ltm")
def main() -> None:
    pass


@main.command(help="Mine, embed and store repositories, local paths or URLs (a full Dagster run per repository, in-process).")
@click.argument("paths", nargs=-1, required=True)
@click.option("--embedder", type=click.Choice(PROVIDERS), default=None,
              help="Embedding provider (default: the home's, else local). `hash` is for tests only.")
@click.option("--branch", default=None, help="Branch or ref whose history is mined (default: the branch at HEAD).")
@click.option("--since", default=None, help="Mine only commits after this date (git's --since, e.g. 2024-01-01).")
@click.option("--max-commits", type=click.IntRange(1), default=None, help="Mine at most this many commits, newest first.")
@click.option("--skip", "skip", multiple=True,
              help="Path pattern to skip in the history (repeatable; replaces the default list: node_modules/, vendor/, dist/, *.min.js, ...).")
@click.option("--full-history", is_flag=True,
              help="Ignore the history cursor and mine the whole range again (and blame every fix again).")
@click.option("--issues", "issues", default=None, type=click.Path(dir_okay=False),
              help="JSON Lines issue export (GitHub REST issue fields) for the bugs stage: titles, labels, report dates.")
@home_option
@user_errors
def ingest(paths: tuple[str, ...], embedder: str | None, branch: str | None, since: str | None,
           max_commits: int | None, skip: tuple[str, ...], full_history: bool, issues: str | None,
           home: str | None) -> None:
    from ltm.extract.gitrepo import GitRepo
    from ltm.repos import add_repository, is_url, remote_head
    from ltm.stages import register_repository

    run_module = importlib.import_module("pipelines.run")  # the Dagster side; ltm/ never imports dagster
    h = Home.resolve(home)
    for p in paths:  # validate every input before the home is touched
        remote_head(p) if is_url(p) else GitRepo(p).head(branch or "HEAD")
    if issues and not Path(issues).is_file():
        raise IssueExportError(f"issue export {issues} does not exist: pass the path of a JSON Lines file")
    recorded = h.settings().get("embedder") if h.exists() else None
    provider = embedder or recorded or "local"
    if recorded and recorded != provider:
        raise EmbeddingError(
            f"{h.root} was built with --embedder {recorded}; ingest with the same embedder or into a new --home"
        )
    if provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
        raise EmbeddingError("the openai embedder needs an API key: set OPENAI_API_KEY")
    h.create()
    with h.lock("ingest"):
        h.update_settings(embedder=provider)
        keys = [add_repository(h, p) if is_url(p) else register_repository(h, p) for p in paths]
        started = time.perf_counter()

        def report(summary: Any) -> None:
            for asset, meta in summary.metadata.items():
                shown = {k: v for k, v in meta.items() if k in _SHOWN}
                click.echo(f"  {asset:<15} {_fmt(shown)}", err=True)
            click.echo(f"done: {summary.repo} in {time.perf_counter() - started:.1f}s (run {summary.run_id})", err=True)

        click.echo(f"ingesting {', '.join(keys)} into {h.root} ...", err=True)
        history = {k: v for k, v in {"branch": branch, "since": since, "max_commits": max_commits,
                                     "skip_patterns": list(skip) or None, "full": full_history or None}.items() if v}
        bugs = {k: v for k, v in {"issues_path": str(Path(issues).resolve()) if issues else None,
                                  "full": full_history or None}.items() if v} or None
        run_module.ingest_partitions(h, keys, provider, on_done=report, commits_config=history, bugs_config=bugs)


_SHOWN = ("mode", "commits", "rows_Bug", "fix_commits", "fixes_blamed", "commits_mined", "rows_MODIFIES", "files_parsed", "memories", "links", "links_added",
          "links_removed", "rows_Function", "rows_Class", "rows", "embedded_now", "cache_hits",
          "node_total", "edge_total", "table_rows", "ok", "coverage")


def _fmt(meta: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in meta.items())


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
    _emit(data, as_json, lambda d: "\n".join(
        [f"{k:<20} {v}" for k, v in d["nodes"].items()]
        + [f"{k:<20} {v}" for k, v in d["rels"].items() if v]
        + [f"{'vectors':<20} {d['vectors']}"]
    ))


@main.command(help="Ask the memory: TEXT is matched by meaning (vectors) and by structure and history (graph).")
@click.argument("text")
@click.option("--strategy", default="parallel", show_default=True,
              type=click.Choice(["parallel", "vector_first", "graph_first", "vector_only", "graph_only"]),
              help="How to combine the vector and graph halves.")
@click.option("--top-k", default=5, show_default=True, type=click.IntRange(1, 1000), help="Results to return.")
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 2), help="Graph expansion depth.")
@click.option("--no-expand", is_flag=True, help="Skip graph expansion and neighbours.")
@click.option("--repo", default=None, help="Only this repository (its key).")
@click.option("--category", default=None, help="Only this category (function, module, commit_log, guideline, memory, ...).")
@click.option("--path", "path_prefix", default=None, help="Only entries whose file path starts with this prefix.")
@click.option("--since", default=None, help="Only entries dated at or after this ISO date (commits, memories).")
@click.option("--until", default=None, help="Only entries dated at or before this ISO date.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def query(text: str, strategy: str, top_k: int, depth: int, no_expand: bool, repo: str | None, category: str | None,
          path_prefix: str | None, since: str | None, until: str | None, as_json: bool, home: str | None) -> None:
    from ltm.query import HybridLTM
    from ltm.retrieval.render import render_hits

    filters = {"repo": repo, "category": category, "path_prefix": path_prefix, "since": since, "until": until}
    with HybridLTM(home) as memory:
        hits = memory.query(text, strategy=strategy, top_k=top_k, expand_graph=not no_expand, depth=depth, filters=filters)
    _emit(hits, as_json, render_hits)


@main.command(help="What calls a function (or, with --callees, what it calls), from the graph's CALLS edges.")
@click.argument("name")
@click.option("--callees", is_flag=True, help="List what NAME calls instead of its callers.")
@click.option("--repo", default=None, help="Only this repository (its partition key).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def calls(name: str, callees: bool, repo: str | None, as_json: bool, home: str | None) -> None:
    from ltm.graph import code_queries
    from ltm.graph.read import open_current

    with open_current(Home.resolve(home).graph) as conn:
        rows = (code_queries.callees if callees else code_queries.callers)(conn, name, repo)
    other = "callee" if callees else "caller"

    def show(rs: list[dict]) -> str:
        if not rs:
            return f"no resolved {other}s of {name}"
        return "\n".join(f"{r['confidence']:.1f}  {r[other]}  ({r[other + '_file']}:{r[other + '_line']})"
                         f"  -> {r['function']} ({r['function_file']})" if not callees else
                         f"{r['confidence']:.1f}  {r['function']} -> {r[other]}  ({r[other + '_file']}:{r[other + '_line']})"
                         for r in rs)

    _emit(rows, as_json, show)


@main.command(help="Which modules depend on module NAME (an internal module or an external package).")
@click.argument("name")
@click.option("--repo", default=None, help="Only this repository (its partition key).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def dependents(name: str, repo: str | None, as_json: bool, home: str | None) -> None:
    from ltm.graph import code_queries
    from ltm.graph.read import open_current

    with open_current(Home.resolve(home).graph) as conn:
        rows = code_queries.dependents(conn, name, repo)
    _emit(rows, as_json, lambda rs: "\n".join(f"{r['dependent']}  ({r['dependent_path']})" for r in rs)
          or f"no module depends on {name}")


@main.command(help="Check that every graph node and vector row link to each other.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def reconcile(as_json: bool, home: str | None) -> None:
    from ltm.reconcile import reconcile as run

    h = Home.resolve(home).require()
    report = run(h.graph, h.vectors).to_dict()
    _emit(report, as_json, lambda r: (
        f"ok: {r['ok']}  nodes with vectors: {r['graph_nodes_with_vector']}  vector rows: {r['vector_rows']}  "
        f"coverage: {r['coverage']:.2%}\n" + "\n".join(f"  {k}: {v}" for k, v in r["orphan_counts"].items())
    ))
    if not report["ok"]:
        sys.exit(1)


@main.command(help="Switch the home to another embedding model: re-embed every repository into a new vector "
                    "table, check it against the graph, then point readers at it (they keep the old one until then).")
@click.option("--embedder", type=click.Choice(PROVIDERS), required=True, help="The provider of the new model.")
@click.option("--model", default=None, help="Model name (openai; default text-embedding-3-small).")
@click.option("--dimensions", default=None, type=click.IntRange(1), help="Output dimension (openai text-embedding-3-*).")
@home_option
@user_errors
def reembed(embedder: str, model: str | None, dimensions: int | None, home: str | None) -> None:
    from ltm.embed.providers import make_embedder
    from ltm.embed.switch import reembed_home

    h = Home.resolve(home).require()
    if embedder == "openai" and not os.environ.get("OPENAI_API_KEY"):
        raise EmbeddingError("the openai embedder needs an API key: set OPENAI_API_KEY")
    with h.lock("ingest"):
        opts = {"model": model, "dimensions": dimensions} if embedder == "openai" else {}
        emb = make_embedder(embedder, **opts)

        def progress(key: str, stats: Any) -> None:
            click.echo(f"  {key:<15} rows={stats.rows} embedded_now={stats.embedded_now} cache_hits={stats.cache_hits}", err=True)

        out = reembed_home(h, emb, on_repo=progress)
        if out.switched:
            h.update_settings(embedder=embedder, embedder_model=model, embedder_dimensions=dimensions)
    prev = f"{out.previous['model']} ({out.previous['dim']})" if out.previous else "nothing"
    click.echo(f"{'switched' if out.switched else 'already current'}: {prev} -> {out.model} ({out.dim}), "
               f"{out.rows} vectors, {out.embedded_now} embedded now")


@main.command(help="Mine a long history in restartable windows (one Dagster run each, oldest first), "
              "then run the whole pipeline once. Run it again to resume after a failure or --max-windows.")
@click.argument("source")
@click.option("--window-commits", type=click.IntRange(1), default=None, help="Commits of the first-parent chain per window.")
@click.option("--window-days", type=click.IntRange(1), default=None, help="Days of committer time per window.")
@click.option("--max-windows", type=click.IntRange(1), default=None,
              help="Stop after this many windows (e.g. a nightly time box); the next call continues.")
@click.option("--embedder", type=click.Choice(PROVIDERS), default=None,
              help="Embedding provider (default: the home's, else local). `hash` is for tests only.")
@home_option
@user_errors
def backfill(source: str, window_commits: int | None, window_days: int | None, max_windows: int | None,
             embedder: str | None, home: str | None) -> None:
    from ltm.backfill import history_cursor, plan_windows
    from ltm.extract.gitrepo import GitRepo
    from ltm.lake import Lake
    from ltm.repos import add_repository, is_url, remote_head, sync_repository

    run_module = importlib.import_module("pipelines.run")
    h = Home.resolve(home)
    if (window_commits is None) == (window_days is None):
        raise click.UsageError("give exactly one of --window-commits and --window-days")
    remote_head(source) if is_url(source) else GitRepo(source).head()
    recorded = h.settings().get("embedder") if h.exists() else None
    provider = embedder or recorded or "local"
    if recorded and recorded != provider:
        raise EmbeddingError(
            f"{h.root} was built with --embedder {recorded}; backfill with the same embedder or into a new --home"
        )
    h.create()
    with h.lock("ingest"):
        h.update_settings(embedder=provider)
        key = add_repository(h, source)
        state = sync_repository(h, key)
        cursor = history_cursor(Lake(h.lake), key)
        after = cursor["tip_sha"] if cursor and cursor["branch"] == (state.branch or "HEAD") else None
        windows = plan_windows(state.path, None, after, window_commits, window_days)
        todo = windows[:max_windows] if max_windows else windows
        click.echo(f"{key}: {sum(w.commits for w in windows)} first-parent commits to mine in {len(windows)} "
                   f"windows{f', {len(todo)} now' if len(todo) < len(windows) else ''}", err=True)

        def report(w: Any, run_id: str) -> None:
            click.echo(f"  window {w.index + 1}/{len(windows)}: {w.commits} commits up to {w.end[:12]} (run {run_id})",
                       err=True)

        run_module.backfill_history(h, key, todo, provider, on_window=report)
        if len(todo) < len(windows):
            click.echo(f"{len(windows) - len(todo)} windows left: run the same command again to continue", err=True)
            return
        [summary] = run_module.ingest_partitions(h, [key], provider)
        click.echo(f"done: {key} backfilled (run {summary.run_id})", err=True)


@main.group(help="Register, list and remove the repositories the pipeline mines (the `repos` partitions).")
def repo() -> None:
    pass


@repo.command("add", help="Register a local repository, or clone a URL read-only into <home>/repos.")
@click.argument("source")
@click.option("--name", default=None, help="Partition key (default: from the folder or URL name).")
@home_option
@user_errors
def repo_add(source: str, name: str | None, home: str | None) -> None:
    from ltm.repos import add_repository

    h = Home.resolve(home).create()
    key = add_repository(h, source, name)
    importlib.import_module("pipelines.run").add_partitions(h, [key])
    click.echo(key)


@repo.command("list", help="The registered repositories: key, path and URL.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def repo_list(as_json: bool, home: str | None) -> None:
    from ltm.repos import list_repositories

    rows = list_repositories(Home.resolve(home).require())
    _emit(rows, as_json, lambda rs: "\n".join(
        f"{r['key']:<24} {r['url'] or r['path']}" for r in rs) or "no repositories registered")


@repo.command("remove", help="Forget a repository: its lake data, vector rows, graph nodes and partition.")
@click.argument("name")
@home_option
@user_errors
def repo_remove(name: str, home: str | None) -> None:
    from ltm.repos import remove_repository

    h = Home.resolve(home).require()
    with h.lock("ingest"):
        out = remove_repository(h, name)
        importlib.import_module("pipelines.run").remove_partition(h, name)
    click.echo(f"removed {name} ({out['vector_rows_deleted']} vector rows)", err=True)


@main.command(help="Open the Dagster web UI on this home (assets, checks and the runs `ltm ingest` made).")
@click.option("--port", default=3000, show_default=True, type=int, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@home_option
@user_errors
def ui(port: int, host: str, home: str | None) -> None:
    h = Home.resolve(home).require()
    importlib.import_module("pipelines.run").home_instance(h)  # storage created under the home's lock
    # `dagster dev` tells its user to run `dg dev` instead, which only works from the project's source
    # folder: the notice is not for someone who typed `ltm ui`, so it is filtered out (by its text).
    warnings = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:Function `dev_command` is superseded"]))
    env = {**os.environ, "DAGSTER_HOME": str(h.dagster), "LTM_HOME": str(h.root), "PYTHONWARNINGS": warnings}
    exe = Path(sys.executable).with_name("dagster")
    args = [str(exe), "dev", "-m", "pipelines.definitions", "-a", "defs", "-h", host, "-p", str(port)]
    click.echo(f"Dagster UI for {h.root} on http://{host}:{port}", err=True)
    os.chdir(h.dagster)  # not a folder with a dagster.yaml of its own, which Dagster would warn is ignored
    os.execve(args[0], args, env)


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
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def memory_import(file: str, fmt: str, once: bool, as_json: bool, home: str | None) -> None:
    from ltm.memory.store import import_memories, register_source

    h = Home.resolve(home).create()
    report = import_memories(h, file, fmt).to_dict()
    if not once:
        register_source(h, file, fmt)
    for bad in report["bad_lines"] if not as_json else []:
        click.echo(f"  line {bad['line']}: {bad['error']}", err=True)
    _emit(report, as_json, lambda r: f"imported {r['loaded']} memories from {file} ({r['skipped']} bad lines "
          "skipped); run `ltm ingest` to embed and link them")


@memory.command("add", help="Store one memory online: searchable and in the graph at once, linked to the code "
                "it names. Prints its vector_id and graph_entity_id.")
@click.argument("text")
@click.option("--metadata", "metadata", default=None,
              help='JSON object of the LTM format, e.g. \'{"file_path": "app/auth.py", "category": "guideline"}\'.')
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def memory_add(text: str, metadata: str | None, as_json: bool, home: str | None) -> None:
    from ltm.query import HybridLTM

    try:
        md = json.loads(metadata) if metadata else {}
    except json.JSONDecodeError as e:
        raise LtmError(f"--metadata is not valid JSON ({e.msg}): pass a JSON object") from e
    if not isinstance(md, dict):
        raise LtmError("--metadata must be a JSON object, e.g. '{\"file_path\": \"app/auth.py\"}'")
    out = HybridLTM(home).add(text, md)
    _emit(out, as_json, lambda o: f"{o['graph_entity_id']}  {o['vector_id']}  links={o['links']}"
          + ("" if o["in_graph"] else "  (in the graph after the next ingest)")
          + "".join(f"\n  link error: {e}" for e in o["link_errors"]))


if __name__ == "__main__":
    main()
