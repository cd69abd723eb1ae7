"""History answers read off an expanded neighbourhood: what `vector_first` does with its graph half.

vector_first starts from LanceDB's hits and only then asks the graph. For a history question the
entries that answer are rarely the ones whose text is closest: "who changed validate_token last"
is answered by the commits that MODIFY that function, "how was bug #3 fixed" by the commits that
FIX bug #3, "commits by Linus" by commits whose author is Linus. Those relations are already in the
seeds' neighbourhood (depth 1 or 2), so this module picks the answers there, orders them (newest
change first, first fix first) and lets them lead the seeds that reached them.
"""

from __future__ import annotations

from collections.abc import Iterable

from ltm.graph.entity_ids import label_of, name_from_id
from ltm.graph.view import GraphView
from ltm.retrieval.expand import Edge
from ltm.retrieval.intent import Intent

HISTORY_KINDS = ("last_change", "modified_by", "introduced_by", "bugfix", "author")


def _named(entity_id: str, subject: str) -> bool:
    """Whether a function or class id names `subject` (its name or its qualified name)."""
    name = name_from_id(entity_id) or ""
    return name == subject or name.endswith("." + subject)


def _linked(seeds: Iterable[str], edges: dict[str, list[Edge]], rel: str, is_target) -> list[str]:
    """Commits joined by `rel` to a target: from a target seed (`in`) or from a commit seed (`out`)."""
    out: list[str] = []
    for s in seeds:
        if label_of(s) == "Commit":
            if any(e.relation == rel and e.direction == "out" and e.hop == 1 and is_target(e.neighbour) for e in edges.get(s, [])):
                out.append(s)
        elif is_target(s):
            out += [e.neighbour for e in edges.get(s, []) if e.relation == rel and e.direction == "in" and e.hop == 1]
    return list(dict.fromkeys(out))


def history_answers(g: GraphView, intent: Intent, seeds: list[str], edges: dict[str, list[Edge]]) -> tuple[list[str], str]:
    """The commits that answer a history question, best first, and why; ([], "") for other questions."""
    subject = intent.subject
    if intent.kind not in HISTORY_KINDS or not subject:
        return [], ""
    if intent.kind in ("last_change", "modified_by", "introduced_by"):
        short = subject.removesuffix("()")
        commits = _linked(seeds, edges, "MODIFIES",
                          lambda i: label_of(i) in ("Function", "Class") and _named(i, short))
        first = intent.kind == "introduced_by"
        why, newest_first = f"{'introduced' if first else 'modified'} {short} (graph expansion)", not first
    elif intent.kind == "bugfix":
        ref = f"#{subject}"
        commits = _linked(seeds, edges, "FIXES", lambda i: label_of(i) == "Bug" and name_from_id(i) == ref)
        why, newest_first = f"fixes bug {ref} (graph expansion)", False
    else:
        near = [s for s in seeds if label_of(s) == "Commit"]
        near += [e.neighbour for s in seeds for e in edges.get(s, []) if label_of(e.neighbour) == "Commit"]
        who = subject.lower()
        info = g.details(dict.fromkeys(near))
        commits = [c for c, d in info.items()
                   if who in (d.get("author_name") or "").lower() or who in (d.get("author_email") or "").lower()]
        why, newest_first = f"authored by {subject} (graph expansion)", True
    if not commits:
        return [], ""
    if intent.kind != "author":
        info = g.details(commits)
    when = {c: info[c].get("committed_at") for c in commits if c in info}
    dated = [c for c in commits if when.get(c) is not None]
    dated.sort(key=lambda c: when[c], reverse=newest_first)
    return dated + [c for c in commits if when.get(c) is None], why
