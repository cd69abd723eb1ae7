"""The `ltm` command group; each command module adds its commands to it."""

import click


@click.group(help="hybrid-ltm: git repositories as a long-term memory (Kuzu graph + LanceDB vectors).")
@click.version_option(package_name="hybrid-ltm")
def main() -> None:
    pass
