"""`ltm ui`: the Dagster web UI on a home."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from cli.app import main
from cli.errors import user_errors
from cli.options import home_option
from ltm.home import Home


@main.command(help="Open the Dagster web UI on this home (assets, checks and the runs `ltm ingest` made).")
@click.option("--port", default=3000, show_default=True, type=int, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. The UI has no login: another address needs --allow-unauthenticated.")
@click.option("--allow-unauthenticated", is_flag=True,
              help="Serve the UI on a non-loopback --host although anyone who reaches it can read and launch runs.")
@home_option
@user_errors
def ui(port: int, host: str, allow_unauthenticated: bool, home: str | None) -> None:
    from pipelines.run import home_instance

    if not _loopback(host) and not allow_unauthenticated:
        raise click.UsageError(
            f"--host {host} would serve the Dagster UI, which has no login, beyond this machine: keep the default "
            "127.0.0.1 (reach it through an SSH tunnel), or pass --allow-unauthenticated if that is what you want"
        )
    h = Home.resolve(home).require()
    home_instance(h)  # storage created under the home's lock
    # `dagster dev` tells its user to run `dg dev` instead, which only works from the project's source
    # folder: the notice is not for someone who typed `ltm ui`, so it is filtered out (by its text).
    warnings = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:Function `dev_command` is superseded"]))
    env = {**os.environ, "DAGSTER_HOME": str(h.dagster), "LTM_HOME": str(h.root), "PYTHONWARNINGS": warnings}
    exe = Path(sys.executable).with_name("dagster")
    args = [str(exe), "dev", "-m", "pipelines.definitions", "-a", "defs", "-h", host, "-p", str(port)]
    click.echo(f"Dagster UI for {h.root} on http://{host}:{port}", err=True)
    if not _loopback(host):
        click.echo(f"warning: the UI on {host} has no login: anyone who can reach port {port} can read this "
                   "home's runs and launch new ones", err=True)
    os.chdir(h.dagster)  # not a folder with a dagster.yaml of its own, which Dagster would warn is ignored
    os.execve(args[0], args, env)


def _loopback(host: str) -> bool:
    """Whether `host` names only this machine (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
