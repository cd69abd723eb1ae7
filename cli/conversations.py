"""`ltm conversations --file PATH`: which conversations edited (or read) a file, and what the user asked."""

from __future__ import annotations

from typing import Any

import click

from cli.app import main
from cli.errors import user_errors
from cli.options import emit, home_option


def _text(convs: list[dict[str, Any]], file: str, action: str) -> str:
    if not convs:
        verb = {"edit": "edited", "read": "read", "any": "read or edited"}[action]
        return f"no conversation {verb} {file}"
    out = []
    for c in convs:
        out.append(f"conversation {c['conversation_id']}")
        for u in c["uses"]:
            at = f" = {', '.join(s[:10] for s in u['commits'])}" if u["commits"] else ""
            out.append(f"  turn {u['turn']}: {u['tool']} ({u['action']}) {u['file'] or u['path']}{at}")
            if u["asked"]:
                out.append(f"    user asked: {u['asked'][:200]}")
    return "\n".join(out)


@main.command("conversations", help="Which conversations (TraceMem imports) edited a file, with what the user asked "
              "before each edit, the file at HEAD and the commits whose content the edit or read equals.")
@click.option("--file", "file", required=True, help="The file: a path or its tail (auth.py, app/auth.py).")
@click.option("--action", type=click.Choice(["edit", "read", "any"]), default="edit", show_default=True,
              help="Which tool uses count.")
@click.option("--namespace", default=None, help="Ask in this namespace (its conversations and the shared ones).")
@click.option("--agent", "agent_id", default=None, help="Ask as this agent (its private conversations too).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@home_option
@user_errors
def conversations(file: str, action: str, namespace: str | None, agent_id: str | None, as_json: bool,
                  home: str | None) -> None:
    from ltm.query import HybridLTM

    with HybridLTM(home) as ltm:
        convs = ltm.conversations(file, action, namespace, agent_id)
    emit(convs, as_json, lambda c: _text(c, file, action))
