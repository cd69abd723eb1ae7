"""Serving the MCP server: over stdio (the agent starts `ltm mcp` itself) or streamable HTTP.

HTTP binds 127.0.0.1 by default. Any other address is served only with a bearer token from the
environment (`LTM_MCP_TOKEN`); with a token set, every request without `Authorization: Bearer
<token>` is refused with 401, whatever the address. The token is compared in constant time and
never written anywhere.
"""

from __future__ import annotations

import hmac
import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer

from ltm.errors import LtmError

TOKEN_ENV = "LTM_MCP_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
PATH = "/mcp"


class ServerConfigError(LtmError):
    """The server was asked to listen in a way it refuses (an open address without a token)."""


class BearerAuth:
    """ASGI middleware: HTTP requests must carry `Authorization: Bearer <token>`; others get 401."""

    def __init__(self, app, token: str):
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = b'{"error": "unauthorized: send the header Authorization: Bearer <LTM_MCP_TOKEN>"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="ltm"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve_stdio(mcp: MCPServer) -> None:
    """Serve over stdin/stdout until the client closes them."""
    print("ltm mcp: serving over stdio", file=sys.stderr, flush=True)
    anyio.run(mcp.run_stdio_async)


def http_token(host: str) -> str | None:
    """The bearer token to require, from the environment; refuses a non-loopback host without one."""
    token = os.environ.get(TOKEN_ENV) or None
    if token is None and host not in LOOPBACK:
        raise ServerConfigError(f"refusing to listen on {host} without a token: set {TOKEN_ENV} in the environment "
                                "(clients then send `Authorization: Bearer <token>`), or listen on 127.0.0.1")
    return token


def serve_http(mcp: MCPServer, host: str, port: int) -> None:
    """Serve streamable HTTP at http://host:port/mcp until interrupted."""
    import uvicorn

    token = http_token(host)
    app = mcp.streamable_http_app(streamable_http_path=PATH, host=host)
    if token is not None:
        app = BearerAuth(app, token)
    shown = f"[{host}]" if ":" in host else host
    need = f"a bearer token is required (from {TOKEN_ENV})" if token else "no token required"
    print(f"ltm mcp: listening on http://{shown}:{port}{PATH}; {need}", file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
