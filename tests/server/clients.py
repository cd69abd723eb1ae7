"""Clients of `ltm mcp` for the tests: the SDK's own ClientSession over stdio and streamable HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-5f2a"


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a server process: this worktree's code first, no model download."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {k: v for k, v in os.environ.items() if k != "LTM_MCP_TOKEN"}
    return {**env, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **extra}


@asynccontextmanager
async def stdio_session(home: Path, errlog: Path, *args: str) -> AsyncIterator[ClientSession]:
    """`python -m cli mcp --home HOME [ARGS]` started by the SDK's stdio client, initialised."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "cli", "mcp", "--home", str(home), *args],
                                   env=server_env(), cwd=str(ROOT))
    with open(errlog, "a", encoding="utf-8") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@asynccontextmanager
async def http_session(url: str, token: str | None = TOKEN) -> AsyncIterator[ClientSession]:
    """A session over streamable HTTP, sending the bearer token when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http_server(home: Path, port: int, errlog: Path, token: str | None = TOKEN) -> subprocess.Popen:
    """`ltm mcp --http` in a subprocess, returned once its port accepts connections."""
    env = server_env(**({"LTM_MCP_TOKEN": token} if token else {}))
    args = [sys.executable, "-m", "cli", "mcp", "--http", "--port", str(port), "--home", str(home)]
    with open(errlog, "a", encoding="utf-8") as err:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}: {errlog.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server did not listen within 90 s: {errlog.read_text()}")


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured content."""
    res = await session.call_tool(tool, args)
    assert not res.is_error, res.content[0].text
    assert res.structured_content == json.loads(res.content[0].text)  # the text mirrors the structure
    return res.structured_content


async def error(session: ClientSession, tool: str, **args: Any) -> str:
    """Call a tool that must fail; its error message."""
    res = await session.call_tool(tool, args)
    assert res.is_error, res.structured_content
    return res.content[0].text
