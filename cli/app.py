"""The `ltm` command group; each command module adds its commands to it."""

import click

from cli.errors import EXIT_CODES_HELP, LtmGroup


@click.group(cls=LtmGroup, help="hybrid-ltm: git repositories as a long-term memory (Kuzu graph + LanceDB vectors).",
             epilog=EXIT_CODES_HELP)
@click.version_option(package_name="hybrid-ltm")
def main() -> None:
    pass
