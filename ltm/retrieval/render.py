"""The readable form of query hits: entity, path:lines, score, why it matched, neighbours."""

from __future__ import annotations

from typing import Any

_ARROW = {"out": "->", "in": "<-"}


def _where(h: dict[str, Any]) -> str:
    if h.get("label") == "Commit":
        return " ".join(x for x in (h.get("date"), h.get("author") and f"by {h['author']}") if x)
    if h.get("file_path"):
        lines = f":{h['line_start']}-{h['line_end']}" if h.get("line_start") else ""
        return f"{h['file_path']}{lines}"
    return h.get("created_at") or h.get("repo") or ""


def render_hits(hits: list[dict[str, Any]]) -> str:
    """Numbered hits, each with its location, first content line, reasons and neighbours."""
    if not hits:
        return "no results"
    out = [f"note: {hits[0]['notice']}"] if hits[0].get("notice") else []
    for n, h in enumerate(hits, 1):
        name = h.get("name") or h.get("graph_entity_id") or h.get("vector_id")
        out.append(f"{n:>2}. {h['score']:.3f}  {h.get('label') or '-':<8} {name}  [{h.get('repo')}] {_where(h)}")
        if h.get("removed_in"):
            out[-1] += f"  (removed in {h['removed_in']})"
        if h.get("superseded_by"):
            out[-1] += f"  (superseded by {h['superseded_by']})"
        first = [h["summary"]] if h.get("summary") else (h.get("content") or "").strip().splitlines()
        if first:
            out.append(f"      {first[0][:110]}")
        if h.get("why"):
            out.append(f"      why: {'; '.join(h['why'][:4])}")
        neigh = h.get("neighbours") or []
        if neigh:
            shown = [f"{_ARROW[e['direction']]}{e['relation']} {e.get('label') or ''} {e.get('name') or e['id']}".replace("  ", " ")
                     for e in neigh[:6]]
            more = f" (+{len(neigh) - 6})" if len(neigh) > 6 else ""
            out.append(f"      neighbours: {', '.join(shown)}{more}")
    return "\n".join(out)
