"""Graph-side candidates: names, properties, authors, bug references and paths matched in the graph.

Each question kind has its traversal (callers over CALLS, importers over IMPORTS/DEPENDS_ON,
fixing commits over FIXES, last changes over MODIFIES, memories over RELATES_TO_*); when a build
lacks those edges the traversal yields nothing and the fallbacks (commit messages that mention the
name or bug, memory text that mentions the path) still answer. Everything is parameterised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ltm.graph.entity_ids import label_of, path_from_id
from ltm.graph.view import GraphView
from ltm.retrieval.filters import Filters
from ltm.retrieval.fusion import ranked, rrf
from ltm.retrieval.intent import Intent

CODE_LABELS = ("Function", "Class")
NAMED_LABELS = ("Function", "Class", "Module")  # matched by their names' words, not Kuzu's full text
MAX_FTS_TERMS = 4  # Kuzu's full-text cost grows by tens of ms per common term on a large label


@dataclass
class GraphCandidates:
    """Ranked entity ids with why each matched, and the ids the question is about."""

    scores: dict[str, float]
    why: dict[str, str]
    subjects: list[str]
    answers: list[str]  # what the question pattern's traversal found, best first ([] for a plain search)
    text_labels: tuple[str, ...] | None = None  # plain search without Kuzu's full text: labels the caller's may add
    wants_text: bool = False


class _Matcher:
    def __init__(self, g: GraphView, filters: Filters, limit: int):
        self.g, self.limit = g, limit
        self.repo = filters.repo
        self.lists: list[tuple[list[str], float]] = []
        self.why: dict[str, str] = {}
        self.wants_text = False

    def _q(self, label_var: str, cypher_where: str, tail: str, params: dict) -> tuple[str, dict]:
        where = cypher_where
        if self.repo:
            where = f"({where}) AND {label_var}.repo = $repo"
            params = {**params, "repo": self.repo}
        return f"{where} {tail}", params

    def ids(self, match: str, var: str, where: str, params: dict, ret: str | None = None, order: str = "") -> list[str]:
        distinct = "" if order else "DISTINCT "  # DISTINCT hides the ORDER BY variable from scope
        body, params = self._q(var, where, f"RETURN {distinct}{ret or var + '.id'} {order} LIMIT $lim", params)
        return [r[0] for r in self.g.run(f"MATCH {match} WHERE {body}", {**params, "lim": self.limit})]

    def at(self, var: str, label: str, ids: list[str]) -> tuple[str, dict]:
        """`var` is one of `ids` (of `label`): by internal offset, so Kuzu reads no string column to test it."""
        return f"offset(id({var})) IN $o_{var}", {f"o_{var}": self.g.offsets(label, ids) or [-1]}

    def add(self, ids: list[str], weight: float, why: str) -> list[str]:
        if ids:
            self.lists.append((ids, weight))
            for i in ids:
                self.why.setdefault(i, why)
        return ids

    # --- entity resolution -------------------------------------------------------------------
    def resolve(self, names: tuple[str, ...] | list[str], labels=CODE_LABELS) -> list[str]:
        names = [n.removesuffix("()") for n in names]
        return [i for label in labels for i in self.g.named(label, names, self.repo, self.limit)]

    def modules(self, name: str) -> list[str]:
        dotted = "." + name.replace("/", ".").removesuffix(".py")
        return self.ids("(m:Module)", "m", "m.name = $y OR m.name ENDS WITH $dy OR m.path = $y OR m.path ENDS WITH $sy",
                        {"y": name, "dy": dotted, "sy": "/" + name})

    def commits_mentioning(self, needle: str, boundary: str, why: str, weight: float = 1.0) -> list[str]:
        """Commits whose message contains `needle` (CONTAINS, then `boundary`, a Python regex, on the hits)."""
        if not self.g.has("Commit", "message"):
            return []
        body, params = self._q("c", "c.message CONTAINS $s", "RETURN c.id, c.message ORDER BY c.committed_at DESC LIMIT $lim",
                               {"s": needle})
        rows = self.g.run(f"MATCH (c:Commit) WHERE {body}", {**params, "lim": 4 * self.limit})
        pat = re.compile(boundary)
        return self.add([r[0] for r in rows if pat.search(r[1] or "")][: self.limit], weight, why)

    # --- question kinds --------------------------------------------------------------------------
    def callers(self, subject: str, reverse: bool = False) -> list[str]:
        targets = self.resolve([subject], ("Function",))
        self.add(targets, 0.5, f"named {subject}")
        if "CALLS" not in self.g.rels or not targets:
            return targets
        arrow = "(f:Function)-[:CALLS]->(c:Function)" if reverse else "(c:Function)-[:CALLS]->(f:Function)"
        found = self.ids(arrow, "c", *self.at("f", "Function", targets))
        self.add(found, 3.0, f"{'called by' if reverse else 'calls'} {subject}")
        return targets

    def importers(self, subject: str) -> list[str]:
        mods = self.modules(subject)
        self.add(mods, 0.5, f"module {subject}")
        if not mods:
            return mods
        if "IMPORTS" in self.g.rels:
            files = self.ids("(f:File)-[:IMPORTS]->(m:Module)", "f", *self.at("m", "Module", mods))
            importers = self.ids("(f:File)-[:BELONGS_TO]->(m:Module)", "m", *self.at("f", "File", files)) if files else []
            self.add(importers, 3.0, f"imports {subject}")
            if files:
                users = self.ids("(n:Function)-[:DEFINED_IN]->(f:File)", "n", *self.at("f", "File", files))
                self.add(users, 1.0, f"in a file that imports {subject}")
        if "DEPENDS_ON" in self.g.rels:
            self.add(self.ids("(a:Module)-[:DEPENDS_ON]->(m:Module)", "a", *self.at("m", "Module", mods)), 3.0,
                     f"depends on {subject}")
        if "CALLS" in self.g.rels:
            paths = [d["path"] for d in self.g.details(mods).values() if d.get("path")]
            inside = self.ids("(f:Function)", "f", "f.file_path IN $paths", {"paths": paths}) if paths else []
            if inside:  # the callers of what the module defines, not a join of two file_path scans
                cond, params = self.at("f", "Function", inside)
                # Internal ids, no DISTINCT (it would read every caller of a hub first) and no caller
                # column scan: the first rows, deduplicated and outside the module's files, kept here.
                rows = self.g.run(f"MATCH (c:Function)-[:CALLS]->(f:Function) WHERE {cond} RETURN id(c) LIMIT $lim",
                                  {**params, "lim": 8 * self.limit})
                callers = [c for c in dict.fromkeys(self.g.id_of(r[0]) for r in rows)
                           if c and path_from_id(c) not in paths and (not self.repo or c.split(":", 2)[1] == self.repo)]
                self.add(callers[: self.limit], 2.0, f"calls into {subject}")
        return mods

    def author(self, subject: str) -> list[str]:
        who = subject.lower()
        ids = self.ids("(c:Commit)", "c", "lower(c.author_name) CONTAINS $who OR lower(c.author_email) CONTAINS $who",
                       {"who": who}, order="ORDER BY c.committed_at DESC")
        self.add(ids, 3.0, f"authored by {subject}")
        return []

    def bugfix(self, number: str) -> list[str]:
        ref = f"#{number}"
        bugs = self.ids("(b:Bug)", "b", "b.ref = $ref OR b.ref ENDS WITH $ref", {"ref": ref}) if "Bug" in self.g.props else []
        if bugs and "FIXES" in self.g.rels:
            fixes = self.ids("(c:Commit)-[:FIXES]->(b:Bug)", "c", *self.at("b", "Bug", bugs), order="ORDER BY c.committed_at")
            self.add(fixes, 3.0, f"fixes bug {ref}")
        self.commits_mentioning(ref, re.escape(ref) + r"(?!\d)", f"message mentions {ref}", 2.0)
        self.add(bugs, 2.0, f"bug {ref}")
        if bugs and "AFFECTS" in self.g.rels:
            self.add(self.ids("(b:Bug)-[:AFFECTS]->(n:Function)", "n", *self.at("b", "Bug", bugs)), 1.0, f"affected by {ref}")
        return bugs

    def file_memories(self, path: str) -> list[str]:
        files = self.ids("(f:File)", "f", "f.path = $p OR f.path ENDS WITH $sp", {"p": path, "sp": "/" + path})
        for rel, label, prop in (("RELATES_TO_FILE", "File", "id"), ("RELATES_TO_FUNCTION", "Function", "file_path"),
                                 ("RELATES_TO_CLASS", "Class", "file_path")):
            if rel in self.g.rels and files:
                cond, params = (self.at("t", "File", files) if prop == "id"
                                else ("t.file_path = $p OR t.file_path ENDS WITH $sp", {"p": path, "sp": "/" + path}))
                self.add(self.ids(f"(m:Memory)-[:{rel}]->(t:{label})", "m", cond, params), 3.0, f"linked to {path}")
        if self.g.has("Memory", "content"):
            self.add(self.ids("(m:Memory)", "m", "m.content CONTAINS $p", {"p": path}), 1.5, f"mentions {path}")
        ov = self.g.overlay
        if ov:  # online memories the build does not hold yet
            wanted = set(files)
            linked = [lk.memory for links in ov.links_to.values() for lk in links
                      if lk.entity in wanted or (lk.entity_label != "File" and _in_path(path_from_id(lk.entity), path))]
            self.add(list(dict.fromkeys(linked)), 3.0, f"linked to {path}")
            self.add(ov.containing(path), 1.5, f"mentions {path}")
        return files

    def last_change(self, subject: str) -> list[str]:
        targets = self.resolve([subject])
        if "MODIFIES" in self.g.rels and targets:
            for label in CODE_LABELS:
                of_label = [t for t in targets if label_of(t) == label]
                if not of_label:
                    continue
                ids = self.ids(f"(c:Commit)-[:MODIFIES]->(n:{label})", "c", *self.at("n", label, of_label),
                               ret="c.id, c.committed_at", order="ORDER BY c.committed_at DESC")
                self.add(ids, 3.0, f"last changed {subject}" if ids else "")
        short = subject.rsplit(".", 1)[-1]
        self.commits_mentioning(short, r"(?<!\w)" + re.escape(short) + r"(?!\w)", f"message mentions {short}", 1.5)
        self.add(targets, 1.0, f"named {subject}")
        return targets

    # --- plain search -----------------------------------------------------------------------------
    def search(self, intent: Intent, labels: tuple[str, ...] | None, w: float = 1.0, full_text: bool = True) -> None:
        """Names, paths, bug refs and full text; `w` scales it down when a question pattern answered.

        Words and full text only when no pattern answered. `full_text=False`: the caller has
        LanceDB's full-text ranking of the same texts (`wants_text` is set) and Kuzu's is skipped.
        """
        code = [lab for lab in CODE_LABELS if labels is None or lab in labels]
        names = [n for n in intent.names if n != intent.subject]
        if names:
            self.add(self.resolve(names, code), 2.0 * w, "name matches")
            if labels is None or "Module" in labels:
                for n in names:
                    self.add(self.modules(n), 1.5 * w, f"module {n}")
        for p in intent.paths if intent.subject is None else ():
            self.add(self.ids("(n:Function)", "n", "n.file_path = $p OR n.file_path ENDS WITH $sp", {"p": p, "sp": "/" + p}),
                     1.0 * w, f"defined in {p}")
            self.add(self.modules(p), 1.5 * w, f"module file {p}")
        for ref in intent.bug_refs if intent.kind != "bugfix" else ():
            self.commits_mentioning(ref, re.escape(ref) + r"(?!\d)", f"message mentions {ref}", 1.5 * w)
        if w != 1.0:
            return
        # Code names: their words through the build's in-memory index (no query, unlike Kuzu's full
        # text, which costs tens of ms per common word on a large label and finds the same names).
        named = [lab for lab in NAMED_LABELS if labels is None or lab in labels]
        hits = self.g.name_matches([*intent.words, *intent.names], named, self.limit) if named else []
        if self.repo:
            hits = [i for i in hits if i.split(":", 2)[1:2] == [self.repo]]
        self.add(hits, 1.0, "name shares the question's words")
        if not full_text:
            self.wants_text = True
            return
        # Messages, titles, memory text: Kuzu's full-text index, with the paths, names and longest words.
        text_labels = [lab for lab in self.g.fts if lab not in NAMED_LABELS and (labels is None or lab in labels)]
        words = sorted(intent.words, key=len, reverse=True)
        terms = " ".join([*intent.names, *intent.paths, *words][:MAX_FTS_TERMS])
        if text_labels and terms:
            hits = [i for i, _ in self.g.full_text(terms, text_labels, self.limit)]
            if self.repo:
                hits = [i for i in hits if i.split(":", 2)[1:2] == [self.repo]]
            self.add(hits, 1.0, "full-text match in the graph")


def graph_candidates(
    g: GraphView, intent: Intent, text: str, filters: Filters, limit: int = 50, full_text: bool = True,
) -> GraphCandidates:
    """Ranked graph matches for a question (intent answers first, then name and full-text matches).

    `full_text=False`: no Kuzu full-text query; a plain search sets `wants_text` and `text_labels`
    for the caller to fuse its LanceDB full-text ranking instead.
    """
    m = _Matcher(g, filters, limit)
    labels = filters.labels() or (intent.labels or None)
    subjects: list[str] = []
    s = intent.subject
    if intent.kind == "callers" and s:
        subjects = m.callers(s)
    elif intent.kind == "callees" and s:
        subjects = m.callers(s, reverse=True)
    elif intent.kind == "importers" and s:
        subjects = m.importers(s)
    elif intent.kind == "author" and s:
        subjects = m.author(s)
    elif intent.kind == "bugfix" and s:
        subjects = m.bugfix(s)
    elif intent.kind == "file_memories" and s:
        subjects = m.file_memories(s)
    elif intent.kind == "last_change" and s:
        subjects = m.last_change(s)
    primary = bool(m.lists) and intent.kind != "search"
    answer_scores = rrf([lst for lst in m.lists if lst[1] >= 1.0]) if primary else {}
    m.search(intent, None if primary else labels, 0.3 if primary else 1.0, full_text)
    scores = rrf(m.lists)
    answers = [i for i in ranked(answer_scores) if i not in subjects]
    return GraphCandidates(scores, {i: w for i, w in m.why.items() if w}, subjects, answers,
                           None if primary else labels, m.wants_text)


def _in_path(file_path: str | None, path: str) -> bool:
    """`file_path` is `path` or ends with it (as the built query's `= $p OR ENDS WITH $sp`)."""
    return bool(file_path) and (file_path == path or file_path.endswith("/" + path))
