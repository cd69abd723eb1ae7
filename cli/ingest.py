"""`ltm ingest`, `ltm backfill`, `ltm reembed`: the commands that run the pipeline in-process."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from cli.app import main
from cli.errors import user_errors
from cli.options import emit, home_option
from cli.progress import View, mode_for
from ltm import progress, run_stamp
from ltm.embed.registry import PROVIDERS, check_credentials, make_embedder, provider_for_run
from ltm.errors import IssueExportError
from ltm.home import Home


@main.command(help="Mine, embed and store repositories, local paths or URLs (in-process: a Dagster extraction run per "
              "repository, then one run that builds the home's graph and vectors for all of them).")
@click.argument("paths", nargs=-1, required=True)
@click.option("--embedder", type=click.Choice(PROVIDERS), default=None,
              help="Embedding provider (default: the home's, else local). `hash` is for tests only.")
@click.option("--graph-engine", "graph_engine", type=click.Choice(["kuzu", "ladybug"]), default=None,
              help="Graph engine of the home (default: the home's, else $LTM_GRAPH_ENGINE, else kuzu). "
                   "Switching rebuilds the graph from the lake; readers keep the old build until then.")
@click.option("--branch", default=None, help="Branch or ref whose history is mined (default: the branch at HEAD).")
@click.option("--since", default=None, help="Mine only commits after this date (git's --since, e.g. 2024-01-01).")
@click.option("--max-commits", type=click.IntRange(1), default=None, help="Mine at most this many commits, newest first.")
@click.option("--skip", "skip", multiple=True,
              help="Path pattern to skip in the history (repeatable; replaces the default list: node_modules/, vendor/, dist/, *.min.js, ...).")
@click.option("--full-history", is_flag=True,
              help="Ignore the history cursor and mine the whole range again (and blame every fix again).")
@click.option("--issues", "issues", default=None, type=click.Path(dir_okay=False),
              help="JSON Lines issue export (GitHub REST issue fields) for the bugs stage: titles, labels, report dates.")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors and the last line.")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON event per line on stdout: start, stage, progress, up_to_date, done (errors: one JSON object).")
@home_option
@user_errors
def ingest(paths: tuple[str, ...], embedder: str | None, graph_engine: str | None, branch: str | None, since: str | None,
           max_commits: int | None, skip: tuple[str, ...], full_history: bool, issues: str | None,
           quiet: bool, as_json: bool, home: str | None) -> None:
    from ltm.extract.gitrepo import GitRepo
    from ltm.repos import add_repository, is_url, remote_head

    h = Home.resolve(home)
    for p in paths:  # validate every input before the home is touched
        remote_head(p) if is_url(p) else GitRepo(p).head(branch or "HEAD")
    if issues and not Path(issues).is_file():
        raise IssueExportError(f"issue export {issues} does not exist: pass the path of a JSON Lines file")
    provider = provider_for_run(h, embedder, "ingest")
    h.create()
    with h.lock("ingest"):
        h.update_settings(embedder=provider, graph_engine=graph_engine or h.graph_engine())
        keys = [add_repository(h, p) for p in paths]
        started = time.perf_counter()
        view = View(mode_for(as_json, quiet))
        history = {k: v for k, v in {"branch": branch, "since": since, "max_commits": max_commits,
                                     "skip_patterns": list(skip) or None, "full": full_history or None}.items() if v}
        bugs = {k: v for k, v in {"issues_path": str(Path(issues).resolve()) if issues else None,
                                  "full": full_history or None}.items() if v} or None
        options = {**history, "issues": bugs and bugs.get("issues_path")}
        todo = keys if full_history else [k for k in keys if not _up_to_date(h, k, options, view)]
        if not todo:
            return
        heads = {k: run_stamp.head_of(h, k, branch) for k in todo}
        view.message(f"ingesting {', '.join(todo)} into {h.root} ...", event="start", repos=todo, home=str(h.root))
        import pipelines.run as run_module  # Dagster is imported only when there is a run to make

        def done(summary: Any) -> None:
            run_stamp.record(h, summary.repo, options, heads[summary.repo])
            seconds = round(time.perf_counter() - started, 1)
            # one repository is one run of the `ingest` job; a batch's stores run is its own
            runs = (f"run {summary.run_id}" if summary.stores_run_id in (None, summary.run_id)
                    else f"run {summary.run_id}; stores run {summary.stores_run_id}")
            view.done(f"done: {summary.repo} in {seconds:.1f}s ({runs})", repo=summary.repo,
                      run_id=summary.run_id, stores_run_id=summary.stores_run_id, seconds=seconds)

        with progress.listening(view.progress):
            run_module.ingest_partitions(h, todo, provider, on_done=done, commits_config=history, bugs_config=bugs,
                                         on_stage=view.stage)


def _up_to_date(h: Home, key: str, options: dict[str, Any], view: View) -> bool:
    stamp = run_stamp.unchanged(h, key, options)
    if stamp:
        view.done(f"{key}: up to date at {stamp['head'][:12]}, nothing new since its last ingest "
                  "(--full-history mines it again)", kind="up_to_date", repo=key, head=stamp["head"])
    return stamp is not None


@main.command(help="Switch the home to another embedding model: re-embed every repository into a new vector "
                    "table, check it against the graph, then point readers at it (they keep the old one until then).")
@click.option("--embedder", type=click.Choice(PROVIDERS), required=True, help="The provider of the new model.")
@click.option("--model", default=None, help="Model name (openai; default text-embedding-3-small).")
@click.option("--dimensions", default=None, type=click.IntRange(1), help="Output dimension (openai text-embedding-3-*).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (progress lines stay on stderr).")
@home_option
@user_errors
def reembed(embedder: str, model: str | None, dimensions: int | None, as_json: bool, home: str | None) -> None:
    from ltm.embed.switch import reembed_home

    h = Home.resolve(home).require()
    check_credentials(embedder)
    with h.lock("ingest"):
        opts = {"model": model, "dimensions": dimensions} if embedder == "openai" else {}
        emb = make_embedder(embedder, **opts)

        def progress(key: str, stats: Any) -> None:
            click.echo(f"  {key:<15} rows={stats.rows} embedded_now={stats.embedded_now} cache_hits={stats.cache_hits}", err=True)

        out = reembed_home(h, emb, on_repo=progress)
        if out.switched:
            h.update_settings(embedder=embedder, embedder_model=model, embedder_dimensions=dimensions)
    prev = f"{out.previous['model']} ({out.previous['dim']})" if out.previous else "nothing"
    data = {"switched": out.switched, "previous": out.previous, "model": out.model, "dim": out.dim, "rows": out.rows,
            "embedded_now": out.embedded_now}
    emit(data, as_json, lambda d: f"{'switched' if d['switched'] else 'already current'}: {prev} -> {d['model']} "
                                  f"({d['dim']}), {d['rows']} vectors, {d['embedded_now']} embedded now")


@main.command(help="Mine a long history in restartable windows (one Dagster run each, oldest first), "
              "then run the whole pipeline once. Run it again to resume after a failure or --max-windows.")
@click.argument("source")
@click.option("--window-commits", type=click.IntRange(1), default=None, help="Commits of the first-parent chain per window.")
@click.option("--window-days", type=click.IntRange(1), default=None, help="Days of committer time per window.")
@click.option("--max-windows", type=click.IntRange(1), default=None,
              help="Stop after this many windows (e.g. a nightly time box); the next call continues.")
@click.option("--embedder", type=click.Choice(PROVIDERS), default=None,
              help="Embedding provider (default: the home's, else local). `hash` is for tests only.")
@click.option("--json", "as_json", is_flag=True, help="One JSON event per line on stdout: plan, window, done.")
@home_option
@user_errors
def backfill(source: str, window_commits: int | None, window_days: int | None, max_windows: int | None,
             embedder: str | None, as_json: bool, home: str | None) -> None:
    from ltm.backfill import plan_windows
    from ltm.extract.gitrepo import GitRepo
    from ltm.lake import Lake
    from ltm.repos import add_repository, is_url, remote_head, sync_repository
    from ltm.stages.history import history_cursor
    import pipelines.run as run_module

    h = Home.resolve(home)
    if (window_commits is None) == (window_days is None):
        raise click.UsageError("give exactly one of --window-commits and --window-days")
    remote_head(source) if is_url(source) else GitRepo(source).head()
    provider = provider_for_run(h, embedder, "backfill")
    h.create()
    with h.lock("ingest"):
        h.update_settings(embedder=provider)
        key = add_repository(h, source)
        state = sync_repository(h, key)
        cursor = history_cursor(Lake(h.lake), key)
        after = cursor["tip_sha"] if cursor and cursor["branch"] == (state.branch or "HEAD") else None
        windows = plan_windows(state.path, None, after, window_commits, window_days)
        todo = windows[:max_windows] if max_windows else windows
        view = View(mode_for(as_json, False))
        view.message(f"{key}: {sum(w.commits for w in windows)} first-parent commits to mine in {len(windows)} "
                     f"windows{f', {len(todo)} now' if len(todo) < len(windows) else ''}", event="plan", repo=key,
                     commits=sum(w.commits for w in windows), windows=len(windows), now=len(todo))

        def report(w: Any, run_id: str) -> None:
            view.message(f"  window {w.index + 1}/{len(windows)}: {w.commits} commits up to {w.end[:12]} (run {run_id})",
                         event="window", window=w.index + 1, commits=w.commits, end=w.end, run_id=run_id)

        run_module.backfill_history(h, key, todo, provider, on_window=report)
        if len(todo) < len(windows):
            view.done(f"{len(windows) - len(todo)} windows left: run the same command again to continue",
                      kind="paused", repo=key, windows_left=len(windows) - len(todo))
            return
        with progress.listening(view.progress):
            [summary] = run_module.ingest_partitions(h, [key], provider, on_stage=view.stage)
        view.done(f"done: {key} backfilled (run {summary.run_id})", repo=key, run_id=summary.run_id)
