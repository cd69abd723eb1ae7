"""The warm service behind the MCP tools: one home, one `HybridLTM`, one graph reader, kept open.

Opening the stores and loading the model cost far more than a question, so they are opened once
and reused. Both readers follow the home as it changes: the graph reader and `HybridLTM` reopen
when `graph/CURRENT` names another build, each read overlays the online memories the build lacks
(`ltm.graph.overlay`: `remember` is seen at once), and the vector side reads the table's latest
version at each query. Kuzu connections and
the retrieval caches are not shared between threads, so reads run one at a time under a lock;
`remember` writes through the library's own locks and takes the read lock only to report links.
"""

from __future__ import annotations

import threading
from typing import Any

from ltm.errors import NotIngestedError, QueryError
from ltm.home import Home
from ltm.lake import Lake
from ltm.query import HybridLTM
from ltm.repos import list_repositories
from ltm.visibility import Scope
from server import calls, changes, entities
from server.graph_reads import GraphReads

CO_CHANGED_SHOWN = 20
CO_CHANGED_PER_CHANGE = 5
RISK_ORDER = {"high": 0, "medium": 1, "low": 2}
TEST_MARKERS = ("tests/", "test/", "test_", "_test.", "spec/", ".spec.", ".test.")


class MemoryService:
    """The questions the MCP tools ask, answered from one warm home."""

    def __init__(self, home: Home, namespace: str | None = None, agent_id: str | None = None):
        """`namespace` / `agent_id`: pin every tool to them (`ltm mcp --namespace --agent`); a tool
        call naming another is refused, so a client cannot read another namespace's memories."""
        Scope.of(namespace, agent_id)  # a malformed name is refused at start
        self.pinned = (namespace, agent_id)
        self.home = home
        self.memory = HybridLTM(home)
        self.reads = GraphReads(home.graph)
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Load the query model and open both stores now, so the first question is as fast as the next."""
        try:
            self.query("warm up", top_k=1)
            with self._lock:
                self.reads.rows("MATCH (r:Repository) RETURN count(r)", None, ["n"])
        except NotIngestedError:
            pass  # an empty home still serves; every tool then says to run `ltm ingest`

    def close(self) -> None:
        """Release both readers."""
        with self._lock:
            self.memory.close()
            self.reads.close()

    def _scope(self, namespace: str | None, agent_id: str | None) -> tuple[str | None, str | None]:
        """The namespace and agent a call acts as: the pinned ones, else those it names."""
        out = []
        for what, given, pinned in (("namespace", namespace, self.pinned[0]), ("agent_id", agent_id, self.pinned[1])):
            if pinned is not None and given not in (None, pinned):
                raise QueryError(f"this server serves {what} {pinned!r} only (`ltm mcp --{what.split('_')[0]}`): "
                                 f"leave {what} out, or ask a server started for {given!r}")
            out.append(pinned if pinned is not None else given)
        return out[0], out[1]

    def query(self, text: str, strategy: str = "parallel", top_k: int = 5, depth: int = 1,
              filters: dict[str, Any] | None = None, namespace: str | None = None,
              agent_id: str | None = None) -> list[dict[str, Any]]:
        """`HybridLTM.query`, on the warm instance, as `namespace` / `agent_id` (`ltm.visibility`)."""
        namespace, agent_id = self._scope(namespace, agent_id)
        with self._lock:
            return self.memory.query(text, strategy=strategy, top_k=top_k, depth=depth, filters=filters,
                                     namespace=namespace, agent_id=agent_id)

    def calls(self, name: str, direction: str, repo: str | None, depth: int, min_confidence: float) -> dict[str, Any]:
        """The functions `name` matches and the CALLS edges walked from them (`callers` or `callees`)."""
        with self._lock:
            targets = calls.function_ids(self.reads, name, repo)
            rows, cut = calls.walk(self.reads, targets, direction, depth, min_confidence)
            return {"targets": targets, "direction": direction, "rows": rows, "truncated": cut}

    def dependents(self, module: str, repo: str | None) -> list[dict[str, Any]]:
        """The modules that depend on `module`, as `ltm dependents` lists them."""
        if not module.strip():
            raise QueryError("the module name is empty: pass a dotted module name such as `pkg.base` or a package `os`")
        with self._lock:
            return self.reads.dependents(module, repo)

    def history(self, ref: str, repo: str | None) -> dict[str, Any]:
        """The entity, the commits that modified it and its former names, its renames and its bugs."""
        with self._lock:
            entity = entities.resolve(self.reads, ref, repo)
            former = entities.renamed_from(self.reads, entity)
            return {
                "entity": entity,
                "commits": entities.commits(self.reads, entity["label"], [entity["id"], *(f["id"] for f in former)]),
                "renamed_from": former,
                "bugs": entities.bugs(self.reads, entity),
            }

    def memories(self, ref: str, repo: str | None, namespace: str | None = None,
                 agent_id: str | None = None) -> dict[str, Any]:
        """The entity and the memories linked to it that `namespace` / `agent_id` may see."""
        scope = Scope.of(*self._scope(namespace, agent_id))
        with self._lock:
            entity = entities.resolve(self.reads, ref, repo)
            return {"entity": entity, "memories": entities.memories(self.reads, entity, scope)}

    def conversations(self, file: str, action: str, namespace: str | None = None,
                      agent_id: str | None = None) -> list[dict[str, Any]]:
        """`HybridLTM.conversations`: the conversations that used the file, with what the user asked
        (those `namespace` / `agent_id` may see)."""
        namespace, agent_id = self._scope(namespace, agent_id)
        with self._lock:
            return self.memory.conversations(file, action, namespace, agent_id)

    def impact(self, ref: str, repo: str | None, depth: int) -> dict[str, Any]:
        """Transitive callers (and the tests among them), co-changes, bugs and defect signals of the entity."""
        with self._lock:
            calls.check_depth(depth)
            entity = entities.resolve(self.reads, ref, repo)
            callers, cut = (calls.walk(self.reads, [entity["id"]], "callers", depth, 0.0)
                            if entity["label"] == "Function" else ([], False))
            tests = sorted({r["other_id"] for r in callers if any(m in (r["other_file"] or "") for m in TEST_MARKERS)})
            return {
                "entity": entity, "callers": callers, "callers_truncated": cut, "tests": tests,
                "co_changed": entities.co_changed(self.reads, entity, CO_CHANGED_SHOWN),
                "bugs": entities.bugs(self.reads, entity),
                **entities.defect_signals(self.reads, entity),
            }

    def _repository(self, repo: str | None) -> dict[str, Any]:
        repos = list_repositories(self.home)
        keys = [r["key"] for r in repos]
        if repo is None and len(repos) == 1:
            return repos[0]
        if repo is None:
            raise QueryError(f"this home holds {len(repos)} repositories: pass repo, one of {', '.join(keys) or 'none'}")
        for r in repos:
            if r["key"] == repo:
                return r
        raise QueryError(f"no repository {repo!r} in this home: use one of {', '.join(keys) or 'none (run `ltm ingest`)'}")

    def detect_changes(self, diff: str | None, repo: str | None) -> dict[str, Any]:
        """The entities a diff (or the working tree against HEAD) changes, with callers, co-changes and risk."""
        entry = self._repository(repo)
        text = diff if diff is not None else changes.working_tree_diff(entry["path"])
        files = changes.parse_diff(text)
        with self._lock:
            head = self.reads.rows("MATCH (r:Repository) WHERE r.repo = $repo RETURN r.head_sha",
                                   {"repo": entry["key"]}, ["head"])
            out = []
            for e in changes.touched(self.reads, entry["key"], files):
                callers = calls.walk(self.reads, [e["id"]], "callers", 1, 0.0)[0] if e["label"] == "Function" else []
                caller_ids = sorted({r["other_id"] for r in callers})
                signals = entities.defect_signals(self.reads, e)
                level, reasons = changes.risk(signals, len(caller_ids))
                out.append({**e, **signals, "callers": caller_ids, "risk": level, "reasons": reasons,
                            "co_changed": entities.co_changed(self.reads, e, CO_CHANGED_PER_CHANGE)})
        out.sort(key=lambda e: RISK_ORDER[e["risk"]])
        return {
            "repo": entry["key"], "graph_head": head[0]["head"] if head else None,
            "files": [{"old_path": f.old_path, "new_path": f.new_path, "lines_added": f.added,
                       "lines_deleted": f.deleted} for f in files],
            "entities": out,
        }

    def remember(self, entries: list[tuple[str, dict[str, Any] | None]], namespace: str | None = None,
                 agent_id: str | None = None) -> list[dict[str, Any]]:
        """`HybridLTM.add_many` (entries without their own namespace / agent_id get these); each stored
        memory with the entities it was linked to."""
        if not entries:
            raise QueryError("nothing to remember: pass `content`, or `entries` with at least one {content, metadata}")
        namespace, agent_id = self._scope(namespace, agent_id)
        if self.pinned != (None, None):  # an entry's own metadata cannot step out of the pinned scope either
            for _, md in entries:
                self._scope((md or {}).get("namespace"), (md or {}).get("agent_id"))
        stored = self.memory.add_many(entries, namespace, agent_id)
        # the add's own links: what the overlay now holds for these memories, with no read of the graph
        return [{**{k: v for k, v in s.items() if k != "linked"}, "links": s["linked"]} for s in stored]

    def repositories(self) -> dict[str, Any]:
        """The registered repositories with the head the graph holds and the history cursor."""
        repos = list_repositories(self.home)
        cursor = {r["repo"]: r for r in Lake(self.home.lake).read("history_cursor").to_pylist()}
        with self._lock:
            try:
                nodes = {r["key"]: r for r in self.reads.rows(
                    "MATCH (r:Repository) RETURN r.repo, r.branch, r.head_sha, r.commit_count", None,
                    ["key", "branch", "head_sha", "commit_count"])}
            except NotIngestedError:
                nodes = {}
            build = self.reads.build
        out = []
        for r in repos:
            node, cur = nodes.get(r["key"], {}), cursor.get(r["key"], {})
            out.append({**r, "branch": node.get("branch") or cur.get("branch"), "head_sha": node.get("head_sha"),
                        "commit_count": node.get("commit_count"), "mined_tip": cur.get("tip_sha"),
                        "mined_at": cur.get("mined_at"), "history_complete": cur.get("complete")})
        return {"graph_build": build, "repositories": out}


def open_service(home: str | None, namespace: str | None = None, agent_id: str | None = None) -> MemoryService:
    """A service over the home at `home` (or LTM_HOME, or the default); refuses a home that does not
    exist. `namespace` / `agent_id`: pinned for every tool (`MemoryService`)."""
    return MemoryService(Home.resolve(home).require(), namespace, agent_id)
