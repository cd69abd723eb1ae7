"""`ltm mcp`: serve the memory to coding agents over the Model Context Protocol."""

from __future__ import annotations

import click

from cli.app import main
from cli.errors import user_errors
from cli.options import home_option


@main.command(help="Serve this home to agents over MCP: stdio by default (the agent starts this command), "
                   "or streamable HTTP with --http. Keeps the stores and the model loaded between questions.")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind with --http; any but loopback needs LTM_MCP_TOKEN set.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on with --http.")
@click.option("--namespace", default=None, help="Pin every tool to this namespace (its memories and the shared "
              "ones); a call naming another is refused. Default: each call may name its own.")
@click.option("--agent", "agent_id", default=None, help="Pin every tool to this agent_id (its private memories).")
@home_option
@user_errors
def mcp(use_http: bool, host: str, port: int, namespace: str | None, agent_id: str | None, home: str | None) -> None:
    from server.service import open_service
    from server.tools import build_server
    from server.transport import http_token, serve_http, serve_stdio

    if use_http:
        http_token(host)  # refuse an open address before anything is loaded
    service = open_service(home, namespace, agent_id)
    try:
        service.warm()
        server = build_server(service)
        if use_http:
            serve_http(server, host, port)
        else:
            serve_stdio(server)
    finally:
        service.close()
