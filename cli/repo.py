"""`ltm repo add|list|remove`: the repositories the pipeline mines (the `repos` partitions)."""

from __future__ import annotations

import click

from cli.app import main
from cli.errors import user_errors
from cli.options import emit, home_option
from ltm.home import Home


@main.group(help="Register, list and remove the repositories the pipeline mines (the `repos` partitions).")
def repo() -> None:
    pass


@repo.command("add", help="Register a local repository, or clone a URL read-only into <home>/repos.")
@click.argument("source")
@click.option("--name", default=None, help="Partition key (default: from the folder or URL name).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def repo_add(source: str, name: str | None, as_json: bool, home: str | None) -> None:
    from ltm.repos import add_repository
    from pipelines.run import add_partitions

    h = Home.resolve(home).create()
    key = add_repository(h, source, name)
    add_partitions(h, [key])
    where = "" if home is None else f" --home {h.root}"
    nxt = f"ltm ingest {source}{where}"
    emit({"key": key, "home": str(h.root), "next": nxt}, as_json, lambda d: d["key"])
    if not as_json:  # the key alone on stdout, for scripts; what to do next for a person
        click.echo(f"registered {key}: run `{nxt}` to mine it now, or `ltm ui{where}` to run it from the web UI", err=True)


@repo.command("list", help="The registered repositories: key, path and URL.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def repo_list(as_json: bool, home: str | None) -> None:
    from ltm.repos import list_repositories

    rows = list_repositories(Home.resolve(home).require())
    emit(rows, as_json, lambda rs: "\n".join(
        f"{r['key']:<24} {r['url'] or r['path']}" for r in rs) or "no repositories registered")


@repo.command("remove", help="Forget a repository: its lake data, vector rows, graph nodes and partition.")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def repo_remove(name: str, as_json: bool, home: str | None) -> None:
    from ltm.repos import remove_repository
    from pipelines.run import remove_partition

    h = Home.resolve(home).require()
    with h.lock("ingest"):
        out = remove_repository(h, name)
        remove_partition(h, name)
    if as_json:
        emit({"removed": name, **out}, True, str)
    else:
        click.echo(f"removed {name} ({out['vector_rows_deleted']} vector rows)", err=True)
