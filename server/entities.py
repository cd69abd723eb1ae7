"""What the graph knows about one code entity: which node a reference names, its history, its bugs,
its memories and what changed with it.

An entity reference is a node id (`fn:`, `cls:`, `file:`), a qualified or plain name of a function
or class, or a file path. Labels written into Cypher come from this module's own table, never from
the caller; every value is a parameter.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ltm import ids
from ltm.errors import QueryError
from ltm.visibility import Scope
from server.graph_reads import GraphReads

PREFIX_LABEL = {"fn": "Function", "cls": "Class", "file": "File"}
MEMORY_REL = {"Function": "RELATES_TO_FUNCTION", "Class": "RELATES_TO_CLASS", "File": "RELATES_TO_FILE"}
MAX_RENAMES = 50
CANDIDATES_SHOWN = 8

# `{repo}`: " AND e.repo = $repo" when a repository is named, else nothing. A null parameter beside
# `$repo IS NULL OR e.repo = $repo` is typed BOOL by LadybugDB, which then fails on every repo string.
_BY_NAME = {
    "Function": "MATCH (e:Function) WHERE (e.qualified_name = $q OR e.name = $q) {repo} "
                "RETURN e.id, e.qualified_name, e.file_path, e.repo, e.qualified_name = $q, e.removed_in IS NULL",
    "Class": "MATCH (e:Class) WHERE (e.qualified_name = $q OR e.name = $q) {repo} "
             "RETURN e.id, e.qualified_name, e.file_path, e.repo, e.qualified_name = $q, e.removed_in IS NULL",
    "File": "MATCH (e:File) WHERE e.path = $q {repo} "
            "RETURN e.id, e.path, e.path AS file_path, e.repo, true, e.removed_in IS NULL",
}
_BY_ID = {
    "Function": "MATCH (e:Function) WHERE e.id = $id RETURN e.id, e.qualified_name, e.file_path, e.repo",
    "Class": "MATCH (e:Class) WHERE e.id = $id RETURN e.id, e.qualified_name, e.file_path, e.repo",
    "File": "MATCH (e:File) WHERE e.id = $id RETURN e.id, e.path, e.path AS file_path, e.repo",
}
_ENTITY_KEYS = ["id", "name", "file_path", "repo"]
# Commits with two parents or more; a merge's changes are those of its branch's commits, listed too.
_MERGES = ("MATCH (p:Commit)-[:PARENT_OF]->(c:Commit) WHERE c.id IN $ids WITH c.id AS id, count(p) AS n "
           "WHERE n > 1 RETURN id, n")


def _utc(value: Any) -> Any:
    """Kuzu returns TIMESTAMP values without a zone; they are UTC."""
    return value.replace(tzinfo=timezone.utc) if isinstance(value, datetime) and value.tzinfo is None else value


def resolve(reads: GraphReads, ref: str, repo: str | None = None) -> dict[str, Any]:
    """The one Function, Class or File that `ref` names; an error that says how to narrow it down."""
    ref = ref.strip()
    if not ref:
        raise QueryError("the entity is empty: pass a function or class name, a file path, or an fn:/cls:/file: id")
    label = PREFIX_LABEL.get(ref.split(":", 1)[0])
    if label:
        rows = reads.rows(_BY_ID[label], {"id": ref}, _ENTITY_KEYS)
        if not rows:
            raise QueryError(f"no {label} with id {ref!r} in the current graph: use `query` to find the entity")
        return {**rows[0], "label": label}
    found = []
    for lbl, cypher in _BY_NAME.items():
        cypher = cypher.format(repo=" AND e.repo = $repo" if repo is not None else "")
        params = {"q": ref, **({"repo": repo} if repo is not None else {})}
        for r in reads.rows(cypher, params, [*_ENTITY_KEYS, "exact", "present"]):
            found.append({**r, "label": lbl})
    if not found:
        raise QueryError(f"no function, class or file named {ref!r}: pass a qualified name (Class.method), a path "
                         "relative to the repository root, or an id from `query`")
    # A qualified-name match beats a plain-name one, and a present entity one removed in history.
    best = max((r["exact"], r["present"]) for r in found)
    found = [r for r in found if (r["exact"], r["present"]) == best]
    if len(found) > 1:
        ids = ", ".join(r["id"] for r in found[:CANDIDATES_SHOWN])
        more = f" and {len(found) - CANDIDATES_SHOWN} more" if len(found) > CANDIDATES_SHOWN else ""
        raise QueryError(f"{ref!r} names {len(found)} entities ({ids}{more}): pass one of these ids, or a repo")
    r = found[0]
    return {k: r[k] for k in (*_ENTITY_KEYS, "label")}


def renamed_from(reads: GraphReads, entity: dict[str, Any]) -> list[dict[str, Any]]:
    """The entity's former names through RENAMED_FROM, nearest first."""
    label = entity["label"]
    name = "path" if label == "File" else "qualified_name"
    path = "path" if label == "File" else "file_path"
    cypher = (f"MATCH (e:{label})-[:RENAMED_FROM]->(o:{label}) WHERE e.id = $id "
              f"RETURN o.id, o.{name} AS name, o.{path} AS file_path, o.repo")
    chain, seen, current = [], {entity["id"]}, entity["id"]
    for _ in range(MAX_RENAMES):
        rows = [r for r in reads.rows(cypher, {"id": current}, _ENTITY_KEYS) if r["id"] not in seen]
        if not rows:
            break
        chain.append({**rows[0], "label": label})
        seen.add(rows[0]["id"])
        current = rows[0]["id"]
    return chain


def commits(reads: GraphReads, label: str, entity_ids: list[str]) -> list[dict[str, Any]]:
    """The commits that MODIFIES any of `entity_ids` (the entity, then its former names), newest first.

    A merge is diffed against its first parent, so it lists again what its branch's commits changed: each
    row says whether it is a merge. A commit that touched two of them (a rename: the old name deleted, the new
    one added) is one row, named for the newest of them, with their lines summed.
    """
    cypher = (f"MATCH (c:Commit)-[m:MODIFIES]->(e:{label}) WHERE e.id IN $ids "
              "RETURN c.sha, c.author_name, c.author_email, c.committed_at, c.message, m.lines_added, m.lines_deleted, "
              "m.change_kind, m.change_type, e.id, c.repo ORDER BY c.committed_at DESC, c.sha")
    keys = ["sha", "author", "author_email", "date", "message", "lines_added", "lines_deleted", "change_kind",
            "change_type", "entity_id", "repo"]
    rank = {eid: i for i, eid in enumerate(entity_ids)}
    by_sha: dict[str, list[dict[str, Any]]] = {}
    for r in reads.rows(cypher, {"ids": entity_ids}, keys):
        by_sha.setdefault(r["sha"], []).append(r)
    shas = [ids.commit_id(rows[0]["repo"], sha) for sha, rows in by_sha.items()]
    merges = {r["id"] for r in reads.rows(_MERGES, {"ids": shas}, ["id", "n"])} if shas else set()
    out = []
    for rows in by_sha.values():
        rows.sort(key=lambda r: rank[r["entity_id"]])
        first = dict(rows[0])
        message = (first["message"] or "").strip()
        first["message"] = message.splitlines()[0] if message else ""
        first["date"] = _utc(first["date"])
        first["merge"] = ids.commit_id(first.pop("repo"), first["sha"]) in merges
        for k in ("lines_added", "lines_deleted"):
            first[k] = sum(r[k] or 0 for r in rows)
        out.append(first)
    return out


def bugs(reads: GraphReads, entity: dict[str, Any]) -> list[dict[str, Any]]:
    """The bugs that AFFECTS the entity (for a file: any function or class defined in it), with their
    fixing commits and the commits blamed for introducing them."""
    if entity["label"] == "File":
        cypher = ("MATCH (b:Bug)-[:AFFECTS]->(x)-[:DEFINED_IN]->(e:File) WHERE e.id = $id "
                  "RETURN DISTINCT b.id, b.ref, b.title, b.state, b.evidence, b.confidence ORDER BY b.id")
    else:
        cypher = (f"MATCH (b:Bug)-[:AFFECTS]->(e:{entity['label']}) WHERE e.id = $id "
                  "RETURN DISTINCT b.id, b.ref, b.title, b.state, b.evidence, b.confidence ORDER BY b.id")
    found = reads.rows(cypher, {"id": entity["id"]}, ["id", "ref", "title", "state", "evidence", "confidence"])
    if not found:
        return []
    bug_ids = [b["id"] for b in found]
    fixes = reads.rows("MATCH (c:Commit)-[:FIXES]->(b:Bug) WHERE b.id IN $ids RETURN b.id, c.sha ORDER BY c.sha",
                       {"ids": bug_ids}, ["bug", "sha"])
    intro = reads.rows("MATCH (b:Bug)-[:INTRODUCED_BY]->(c:Commit) WHERE b.id IN $ids RETURN DISTINCT b.id, c.sha "
                       "ORDER BY c.sha", {"ids": bug_ids}, ["bug", "sha"])
    for b in found:
        b["fixed_by"] = [r["sha"] for r in fixes if r["bug"] == b["id"]]
        b["introduced_by"] = [r["sha"] for r in intro if r["bug"] == b["id"]]
    return found


def memories(reads: GraphReads, entity: dict[str, Any], scope: Scope | None = None) -> list[dict[str, Any]]:
    """The memories linked to the entity (RELATES_TO_FUNCTION / _CLASS / _FILE) that `scope` sees
    (default: shared ones; `ltm.visibility`), most relevant first."""
    scope = scope or Scope.of()
    rel = MEMORY_REL[entity["label"]]
    cond, params = "e.id = $id", {"id": entity["id"]}
    if reads.has("Memory", "namespace"):
        extra, scope_params = scope.cypher("m")
        cond, params = f"{cond} AND {extra}", {**params, **scope_params}
    cypher = (f"MATCH (m:Memory)-[r:{rel}]->(e:{entity['label']}) WHERE {cond} "
              "RETURN m.id, m.content, m.category, m.memory_type, m.created_at, r.relevance_score "
              "ORDER BY r.relevance_score DESC, m.created_at DESC")
    keys = ["id", "content", "category", "memory_type", "created_at", "relevance_score"]
    hidden = reads.hidden_memories(scope)
    rows = [r for r in reads.rows(cypher, params, keys) if r["id"] not in hidden]
    ov = reads.overlay
    if ov:  # online memories the build does not hold yet
        mems = ov.memories
        rows += [{"id": lk.memory, **{k: mems[lk.memory].get(k) for k in keys[1:5]}, "relevance_score": lk.relevance_score}
                 for lk in ov.links_to.get(entity["id"], ()) if lk.rel == rel and lk.memory not in hidden]
        rows.sort(key=lambda r: (-(r["relevance_score"] or 0.0), -_stamp(r["created_at"])))
    return [{**r, "created_at": _utc(r["created_at"]), "relation": rel} for r in rows]


def _stamp(at: Any) -> float:
    return _utc(at).timestamp() if isinstance(at, datetime) else 0.0


def co_changed(reads: GraphReads, entity: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """Functions, classes and files most often modified in the same commits as the entity (the file
    a function or class is defined in goes without saying and is left out)."""
    own = ids.file_id(entity["repo"], entity["file_path"]) if entity["label"] != "File" and entity.get("file_path") else None
    cypher = (f"MATCH (c:Commit)-[:MODIFIES]->(e:{entity['label']}) WHERE e.id = $id "
              f"MATCH (c)-[:MODIFIES]->(o) WHERE o.id <> $id{' AND o.id <> $own' if own else ''} "
              "RETURN o.id, label(o), count(DISTINCT c) AS n ORDER BY n DESC, o.id LIMIT $limit")
    params = {"id": entity["id"], "limit": limit, **({"own": own} if own else {})}
    return reads.rows(cypher, params, ["id", "label", "commits"])


def defect_signals(reads: GraphReads, entity: dict[str, Any]) -> dict[str, Any]:
    """fix_count, churn and bugs_introduced of a function (the bugs stage's signals); empty otherwise."""
    if entity["label"] != "Function":
        return {}
    try:
        rows = reads.rows("MATCH (e:Function) WHERE e.id = $id RETURN e.fix_count, e.churn, e.bugs_introduced",
                          {"id": entity["id"]}, ["fix_count", "churn", "bugs_introduced"])
    except RuntimeError:  # a build without the bugs stage's columns
        return {}
    return rows[0] if rows else {}
