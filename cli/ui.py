"""`ltm ui`: the Dagster web UI on a home, served by `dg dev` (webserver, daemon and code server)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import click

from cli.app import main
from cli.errors import fail, user_errors
from cli.options import home_option
from ltm.home import Home


@main.command(help="Open the Dagster web UI on this home (assets, checks and the runs `ltm ingest` made).")
@click.option("--port", default=3000, show_default=True, type=int, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. The UI has no login: another address needs --allow-unauthenticated.")
@click.option("--allow-unauthenticated", is_flag=True,
              help="Serve the UI on a non-loopback --host although anyone who reaches it can read and launch runs.")
@click.option("--json", "as_json", is_flag=True,
              help="Print where the UI listens as one JSON object on stdout before it starts (the server's log follows).")
@home_option
@user_errors
def ui(port: int, host: str, allow_unauthenticated: bool, as_json: bool, home: str | None) -> None:
    from pipelines.run import home_instance

    if not _loopback(host) and not allow_unauthenticated:
        raise click.UsageError(
            f"--host {host} would serve the Dagster UI, which has no login, beyond this machine: keep the default "
            "127.0.0.1 (reach it through an SSH tunnel), or pass --allow-unauthenticated if that is what you want"
        )
    if importlib.util.find_spec("dagster_webserver") is None:
        fail("the web UI needs the `ui` extra: pip install 'hybrid-ltm[ui]'", "environment")
    h = Home.resolve(home).require()
    home_instance(h)  # storage created under the home's lock
    env = {**os.environ, "DAGSTER_HOME": str(h.dagster), "LTM_HOME": str(h.root)}
    args = _command(host, port, env)
    url = f"http://{host}:{port}"
    if as_json:
        click.echo(json.dumps({"home": str(h.root), "url": url, "asset_graph": url + asset_graph_path(),
                               "server": f"{Path(args[0]).name} dev"}))
    else:
        click.echo(f"Dagster UI for {h.root} on {url}", err=True)
        click.echo(f"the asset graph, every group expanded: {url}{asset_graph_path()}", err=True)
    if not _loopback(host):
        click.echo(f"warning: the UI on {host} has no login: anyone who can reach port {port} can read this "
                   "home's runs and launch new ones", err=True)
    os.chdir(h.dagster)  # not a folder with a dagster.yaml of its own, which Dagster would warn is ignored
    sys.stdout.flush()  # execve drops what Python still buffers (the JSON line, on a pipe)
    sys.stderr.flush()
    os.execve(args[0], args, env)


def _command(host: str, port: int, env: dict[str, str]) -> list[str]:
    """`dg dev` on the pipeline's definitions (webserver, daemon, code server); where dagster-dg-cli is
    missing, the older `dagster dev` with a line saying so. `env` gets what the fallback needs."""
    target = ["-m", "pipelines.definitions", "-a", "defs", "-h", host, "-p", str(port)]
    dg = Path(sys.executable).with_name("dg")
    if dg.exists():
        return [str(dg), "dev", *target]
    click.echo("note: `dg` (dagster-dg-cli, in the `ui` extra) is not installed: starting `dagster dev` "
               "instead; pip install 'hybrid-ltm[ui]' to use `dg dev`", err=True)
    # `dagster dev` tells its user to run `dg dev`, which is what the note above already says
    env["PYTHONWARNINGS"] = ",".join(filter(None, [env.get("PYTHONWARNINGS"),
                                                    "ignore:Function `dev_command` is superseded"]))
    return [str(Path(sys.executable).with_name("dagster")), "dev", *target]


def asset_graph_path() -> str:
    """The UI's global asset graph with every asset group expanded (the UI collapses them when there
    are several; it keeps the expanded groups in the `expanded` query parameter)."""
    from urllib.parse import quote

    from pipelines.definitions import defs

    groups = sorted({node.group_name for node in defs.get_repository_def().asset_graph.asset_nodes})
    return "/asset-groups?expanded=" + quote(",".join(f"global@global:{g}" for g in groups), safe=",@:")


def _loopback(host: str) -> bool:
    """Whether `host` names only this machine (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
