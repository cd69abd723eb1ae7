"""Graph-side candidates: names, properties, authors, bug references and paths matched in the graph.

Each question kind has its traversal (callers over CALLS, importers over IMPORTS/DEPENDS_ON,
fixing commits over FIXES, last changes over MODIFIES, memories over RELATES_TO_*); when a build
lacks those edges the traversal yields nothing and the fallbacks (commit messages that mention the
name or bug, memory text that mentions the path) still answer. Everything is parameterised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ltm.graph.entity_ids import label_of, name_from_id, path_from_id
from ltm.graph.name_words import NAMED_LABELS
from ltm.graph.view import GraphView
from ltm.retrieval.filters import Filters
from ltm.retrieval.fusion import ranked, rrf
from ltm.retrieval.intent import CLASS_KINDS, MODULE_KINDS, Intent
from ltm.visibility import Scope
from ltm.code_paths import is_auxiliary_entity

CODE_LABELS = ("Function", "Class")
MAX_HISTORY_COMMITS = 200  # commits read per subject for co-change


@dataclass
class GraphCandidates:
    """Ranked entity ids with why each matched, and the ids the question is about."""

    scores: dict[str, float]
    why: dict[str, str]
    subjects: list[str]
    answers: list[str]  # what the question pattern's traversal found, best first ([] for a plain search)
    text_labels: tuple[str, ...] | None = None  # a plain search: the labels the caller's full text may add
    wants_text: bool = False
    subject: str | None = None  # the candidate name the graph knows (`Intent.candidates`), when one does


class _Matcher:
    def __init__(self, g: GraphView, filters: Filters, limit: int):
        self.g, self.limit = g, limit
        self.repo = filters.repo
        self.lists: list[tuple[list[str], float]] = []
        self.why: dict[str, str] = {}
        self.wants_text = False
        self.scope: Scope | None = None

    def memory_scope(self, cond: str, params: dict) -> tuple[str, dict]:
        """`cond` on memory `m`, within the scope (bound parameters) when the build has its columns."""
        if self.scope is None or not self.g.has("Memory", "namespace"):
            return cond, params
        extra, scope_params = self.scope.cypher("m")
        return f"({cond}) AND {extra}", {**params, **scope_params}

    def _q(self, label_var: str, cypher_where: str, tail: str, params: dict) -> tuple[str, dict]:
        where = cypher_where
        if self.repo:
            where = f"({where}) AND {label_var}.repo = $repo"
            params = {**params, "repo": self.repo}
        return f"{where} {tail}", params

    def ids(self, match: str, var: str, where: str, params: dict, ret: str | None = None, order: str = "") -> list[str]:
        distinct = "" if order else "DISTINCT "  # DISTINCT hides the ORDER BY variable from scope
        ret = ret or var + ".id"
        # Without an order Kuzu's parallel scan returns a LIMIT's rows, and their ranks, in no fixed
        # order: the same question got other hits from one run to the next.
        order = order or f"ORDER BY {ret}"
        body, params = self._q(var, where, f"RETURN {distinct}{ret} {order} LIMIT $lim", params)
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
        return self.g.live_first(i for label in labels for i in self.g.named(label, names, self.repo, self.limit))

    def modules(self, name: str) -> list[str]:
        dotted = "." + name.replace("/", ".").removesuffix(".py")
        # `click.core` (Python), `internal/bytesconv` of `github.com/gin-gonic/gin/internal/bytesconv` (Go),
        # `exit_codes` of `crate::exit_codes` (Rust), paths
        return self.ids("(m:Module)", "m", "m.name = $y OR m.name ENDS WITH $dy OR m.name ENDS WITH $sy "
                        "OR m.name ENDS WITH $cy OR m.path = $y OR m.path ENDS WITH $sy",
                        {"y": name, "dy": dotted, "sy": "/" + name, "cy": "::" + name.replace(".", "::")})

    def commits_mentioning(self, needle: str, boundary: str, why: str, weight: float = 1.0) -> list[str]:
        """Commits whose message contains `needle` (CONTAINS, then `boundary`, a Python regex, on the hits)."""
        if not self.g.has("Commit", "message"):
            return []
        body, params = self._q("c", "c.message CONTAINS $s", "RETURN c.id, c.message ORDER BY c.committed_at DESC LIMIT $lim",
                               {"s": needle})
        rows = self.g.run(f"MATCH (c:Commit) WHERE {body}", {**params, "lim": 4 * self.limit})
        pat = re.compile(boundary)
        return self.add([r[0] for r in rows if pat.search(r[1] or "")][: self.limit], weight, why)

    def files(self, path: str) -> list[str]:
        return self.ids("(f:File)", "f", "f.path = $p OR f.path ENDS WITH $sp", {"p": path, "sp": "/" + path})

    def find(self, name: str, labels: tuple[str, ...]) -> list[str]:
        """Ids called `name` among `labels`, in the order of `labels` (Module and File by name or
        path), package code ahead of tests, examples and docs, and what exists at the tip first."""
        found: list[str] = []
        for label in labels:
            if label in CODE_LABELS and "/" not in name:
                found += self.resolve([name], (label,))
            elif label == "Module":
                found += self.modules(name)
            elif label == "File" and ("/" in name or "." in name):
                found += self.files(name)
        return self.g.live_first(sorted(dict.fromkeys(found),
                                        key=lambda i: is_auxiliary_entity(path_from_id(i) or name_from_id(i) or "",
                                                                          name_from_id(i) if path_from_id(i) else None)))

    def subject(self, intent: Intent, labels: tuple[str, ...]) -> tuple[str | None, list[str]]:
        """The first of the question's candidate names that names something of `labels`, and its ids."""
        for cand in intent.candidates:
            variants = _variants(cand)
            if len(variants) > 1 and self._foreign(cand):  # one query per candidate, none for a bare name
                variants = [v for v in variants if "." in v]  # `functools.partial` is functools', never a `partial` of ours
            for name in variants:
                ids = self.find(name, labels)
                if ids:
                    return name, ids
        return None, []

    def _foreign(self, name: str) -> bool:
        """`name` is qualified by another package's module (`functools.partial`): the home has a
        module of that name only among the packages its code imports, none of its own."""
        head = name.strip("`'\"").removesuffix("()").rpartition(".")[0]
        if not head or "/" in head:
            return False
        found = self.ids("(m:Module)", "m", "m.name = $y", {"y": head})
        return bool(found) and all(_external(i) for i in found)

    # --- question kinds --------------------------------------------------------------------------
    def callers(self, subject: str, reverse: bool = False, targets: list[str] | None = None) -> list[str]:
        targets = self.resolve([subject], ("Function",)) if targets is None else targets
        self.add(targets, 0.5, f"named {subject}")
        if "CALLS" not in self.g.rels or not targets:
            return targets
        found = self.ids(_calls(reverse), "c", *self.at("f", "Function", targets))
        self.add(found, 3.0, f"{'called by' if reverse else 'calls'} {subject}")
        return targets

    def importers(self, subject: str, mods: list[str] | None = None) -> list[str]:
        mods = self.modules(subject) if mods is None else [m for m in mods if label_of(m) == "Module"]
        self.add(mods, 0.5, f"module {subject}")
        if not mods:
            return mods
        files: list[str] = []
        if "IMPORTS" in self.g.rels:
            files = self.ids("(f:File)-[:IMPORTS]->(m:Module)", "f", *self.at("m", "Module", mods))
            # The importing files are the answer in every language (a Go package or a JS module is
            # several files or one) and name their module by their path; the modules they make
            # answer only where no file edge exists (DEPENDS_ON below).
            self.add(files, 3.5, f"imports {subject}")
        if "DEPENDS_ON" in self.g.rels and not files:
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

    def imports(self, subject: str, mods: list[str], source: str | None = None) -> list[str]:
        """What a module depends on (DEPENDS_ON) and what its files import (IMPORTS); with `source`
        ("what does M import from N"), first the functions and classes it imports from N by name.

        The repository's own modules rank first: they are code the store holds; another package
        is only a name (and "which of our modules does X import" wants only those).
        """
        files = [m for m in mods if label_of(m) == "File"]
        mods = [m for m in mods if label_of(m) == "Module"]
        self.add(mods, 0.5, f"module {subject}")
        found: list[str] = []
        if mods and "DEPENDS_ON" in self.g.rels:
            found += self.ids("(m:Module)-[:DEPENDS_ON]->(d:Module)", "d", *self.at("m", "Module", mods))
        if mods and "IMPORTS" in self.g.rels and "BELONGS_TO" in self.g.rels:
            files += self.ids("(f:File)-[:BELONGS_TO]->(m:Module)", "f", *self.at("m", "Module", mods))
        if files and "IMPORTS" in self.g.rels:
            found += self.ids("(f:File)-[:IMPORTS]->(d:Module)", "d", *self.at("f", "File", files))
            # "from N": the names imported lead, and N itself follows them (not among M's other imports)
            answered = self.imported_names(subject, files, source) if source else []
            if answered:
                found = [d for d in found if d not in answered]
        found = list(dict.fromkeys(found))
        self.add([d for d in found if not _external(d)], 3.0, f"imported by {subject}")
        self.add([d for d in found if _external(d)], 1.0, f"imported by {subject} (another package)")
        return mods or files

    def imported_names(self, subject: str, files: list[str], source: str) -> list[str]:
        """The functions and classes `files` import by name from module `source` (IMPORTS `names`),
        in the order they are imported, then the module; [] when they import nothing from it by name.
        A name not defined in the module's own file (a re-export) is looked up in its repository."""
        targets = [m for m in self.modules(source) if label_of(m) == "Module"]
        if not targets:
            return []
        fc, fp = self.at("f", "File", files)
        dc, dp = self.at("d", "Module", targets)
        try:
            rows = self.g.run(f"MATCH (f:File)-[r:IMPORTS]->(d:Module) WHERE {fc} AND {dc} RETURN d.id, r.names",
                              {**fp, **dp})
        except RuntimeError:  # a build from before IMPORTS carried names (a binder error): the modules still answer
            return []
        names = list(dict.fromkeys(n for _, ns in rows if ns for n in ns.split(",")))
        sources = list(dict.fromkeys(d for d, _ in rows))
        if not names:
            return []
        paths = [d["path"] for d in self.g.details(sources).values() if d.get("path")]
        found: list[str] = []
        for label in CODE_LABELS:
            # top-level definitions only: a method of the same name is not what an import binds
            found += self.ids(f"(e:{label})", "e", "e.qualified_name IN $names AND e.file_path IN $paths",
                              {"names": names, "paths": paths})
        named = {name_from_id(i): i for i in reversed(found)}
        missing = [n for n in names if n not in named]
        repos = {t.split(":", 2)[1] for t in sources}
        for i in self.resolve(missing) if missing else []:
            if i.split(":", 2)[1] in repos and name_from_id(i) in missing and name_from_id(i) not in named:
                named[name_from_id(i)] = i
        hits = self.add([named[n] for n in names if n in named], 4.0, f"imported by {subject} from {source}")
        return hits + self.add(sources, 0.5, f"{subject} imports from it") if hits else []

    def hierarchy(self, subject: str, classes: list[str], down: bool) -> list[str]:
        """Subclasses (`down`) or base classes of `classes`, over EXTENDS and IMPLEMENTS."""
        classes = [c for c in classes if label_of(c) == "Class"]
        self.add(classes, 0.5, f"named {subject}")
        for rel in ("EXTENDS", "IMPLEMENTS"):
            if rel in self.g.rels and classes:
                arrow = f"(c:Class)-[:{rel}]->(b:Class)"
                found = (self.ids(arrow, "c", *self.at("b", "Class", classes)) if down
                         else self.ids(arrow, "b", *self.at("c", "Class", classes)))
                self.add(found, 3.0, f"{'subclass' if down else 'base class'} of {subject}")
        return classes

    def methods(self, subject: str, classes: list[str]) -> list[str]:
        classes = [c for c in classes if label_of(c) == "Class"]
        self.add(classes, 0.5, f"named {subject}")
        if classes and "HAS_METHOD" in self.g.rels:
            self.add(self.ids("(c:Class)-[:HAS_METHOD]->(f:Function)", "f", *self.at("c", "Class", classes)), 3.0,
                     f"method of {subject}")
        return classes

    def changes(self, targets: list[str], newest_first: bool = True) -> list[str]:
        """Commits that MODIFY `targets`, newest (or oldest) first."""
        found: list[tuple[object, str, bool]] = []
        if "MODIFIES" in self.g.rels:
            for label in ("Function", "Class", "File"):
                of_label = [t for t in targets if label_of(t) == label]
                if of_label:
                    cond, params = self.at("n", label, of_label)
                    merge = "c.message STARTS WITH 'Merge '" if self.g.has("Commit", "message") else "false"
                    body, params = self._q("c", cond, f"RETURN DISTINCT c.id, c.committed_at, {merge}", params)
                    found += [(r[1], r[0], bool(r[2])) for r in
                              self.g.run(f"MATCH (c:Commit)-[:MODIFIES]->(n:{label}) WHERE {body}", params)]
        # merges after the commits that made the change: "why" is in the change's own message
        dated = sorted((x for x in found if x[0] is not None), key=lambda x: x[0], reverse=newest_first)
        dated.sort(key=lambda x: x[2])
        return list(dict.fromkeys([c for _, c, _ in dated] + [c for d, c, _ in found if d is None]))

    def history(self, kind: str, subject: str, targets: list[str]) -> list[str]:
        """modified_by (every change, newest first), introduced_by (the first), co_changed (what changed with it)."""
        if kind == "introduced_by":
            self.add(self.changes(targets, newest_first=False)[:3], 3.0, f"introduced {subject}")
        elif kind == "modified_by":
            self.add(self.changes(targets), 3.0, f"modified {subject}")
        elif kind == "co_changed" and "MODIFIES" in self.g.rels:
            commits = self.changes(targets)[:MAX_HISTORY_COMMITS]
            want = {label_of(t) for t in targets} or {"File"}
            counts: dict[str, int] = {}
            for label in want:
                if commits:
                    cond, params = self.at("c", "Commit", commits)
                    rows = self.g.run(f"MATCH (c:Commit)-[:MODIFIES]->(n:{label}) WHERE {cond} RETURN n.id", params)
                    for (i,) in rows:
                        if i not in targets:
                            counts[i] = counts.get(i, 0) + 1
            self.add(sorted(counts, key=lambda i: (-counts[i], i))[: self.limit], 3.0, f"changed together with {subject}")
        self.add(targets, 0.5, f"named {subject}")
        return targets

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
                self.add(self.ids(f"(m:Memory)-[:{rel}]->(t:{label})", "m", *self.memory_scope(cond, params)),
                         3.0, f"linked to {path}")
        if self.g.has("Memory", "content"):
            self.add(self.ids("(m:Memory)", "m", *self.memory_scope("m.content CONTAINS $p", {"p": path})),
                     1.5, f"mentions {path}")
        ov = self.g.overlay
        if ov:  # online memories the build does not hold yet
            wanted = set(files)
            linked = [lk.memory for links in ov.links_to.values() for lk in links
                      if lk.entity in wanted or (lk.entity_label != "File" and _in_path(path_from_id(lk.entity), path))]
            self.add(list(dict.fromkeys(linked)), 3.0, f"linked to {path}")
            self.add(ov.containing(path), 1.5, f"mentions {path}")
        return files

    def last_change(self, subject: str, targets: list[str] | None = None) -> list[str]:
        targets = self.resolve([subject]) if targets is None else targets
        self.add(self.changes(targets), 3.0, f"last changed {subject}")
        short = subject.rsplit(".", 1)[-1]
        self.commits_mentioning(short, r"(?<!\w)" + re.escape(short) + r"(?!\w)", f"message mentions {short}", 1.5)
        self.add(targets, 1.0, f"named {subject}")
        return targets

    # --- plain search -----------------------------------------------------------------------------
    def search(self, intent: Intent, labels: tuple[str, ...] | None, w: float = 1.0) -> None:
        """Names, paths, bug refs and full text; `w` scales it down when a question pattern answered.

        Name words only when no pattern answered; then `wants_text` is set: messages, titles and
        memory text are ranked by the caller's LanceDB full text (a build has no full-text index).
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
        self.wants_text = True


def graph_candidates(
    g: GraphView, intent: Intent, text: str, filters: Filters, limit: int = 50, scope: Scope | None = None,
) -> GraphCandidates:
    """Ranked graph matches for a question (intent answers first, then name and full-text matches).

    `scope` (`ltm.visibility`): memories it may not see are never matched (a Kuzu condition where a
    query reads memories; `retrieve` drops any other hidden id).

    A plain search sets `wants_text` and `text_labels` for the caller to fuse LanceDB's full-text
    ranking of messages, titles and memory text (the graph's own full text).
    """
    m = _Matcher(g, filters, limit)
    m.scope = scope
    labels = filters.labels() or (intent.labels or None)
    subjects: list[str] = []
    k, s, name = intent.kind, intent.subject, None
    if k in ("callers", "callees") or k in MODULE_KINDS:
        order = ("Module", "File", "Function", "Class") if k in MODULE_KINDS else ("Function", "Module", "Class")
        name, ids = m.subject(intent, order)
        if ids and label_of(ids[0]) == "Function":  # "who uses parse_args": a function's callers
            subjects = m.callers(name, reverse=k == "callees", targets=[i for i in ids if label_of(i) == "Function"])
        elif ids and k == "imports":
            subjects = m.imports(name, ids, intent.source)
        elif ids and label_of(ids[0]) in ("Module", "File"):  # "what calls into starlette.routing"
            subjects = m.importers(name, m.modules(name) if label_of(ids[0]) == "File" else ids)
        elif ids:
            subjects = m.add(ids, 0.5, f"named {name}")
    elif k in CLASS_KINDS:
        name, ids = m.subject(intent, ("Class",))
        if ids:
            subjects = m.methods(name, ids) if k == "methods" else m.hierarchy(name, ids, down=k == "subclasses")
    elif k in ("modified_by", "introduced_by", "co_changed", "last_change"):
        name, ids = m.subject(intent, ("Function", "Class", "File", "Module"))
        ids = [i for i in ids if label_of(i) != "Module"] or [
            f for i in ids for f in m.files((g.details([i]).get(i) or {}).get("path") or "") if f]
        # "which commit moved X into F", "who last changed X in F": X's entity in the file named
        ids = [i for i in ids if any(_in_path(path_from_id(i), p) for p in intent.paths)] or ids
        if ids:
            subjects = m.last_change(name, ids) if k == "last_change" else m.history(k, name, ids)
    elif k == "author" and s:
        subjects = m.author(s)
    elif k == "bugfix" and s:
        subjects = m.bugfix(s)
    elif k == "file_memories" and s:
        subjects = m.file_memories(s)
    primary = bool(m.lists) and intent.kind != "search"
    answer_scores = rrf([lst for lst in m.lists if lst[1] >= 1.0]) if primary else {}
    m.search(intent, None if primary else labels, 0.3 if primary else 1.0)
    scores = rrf(m.lists)
    answers = [i for i in ranked(answer_scores) if i not in subjects]
    return GraphCandidates(scores, {i: w for i, w in m.why.items() if w}, subjects, answers,
                           None if primary else labels, m.wants_text,
                           name if name is not None or k not in ("author", "bugfix", "file_memories") else s)


def _calls(reverse: bool) -> str:
    """The CALLS pattern from the callers `c` of `f` (`reverse`: from what `f` calls)."""
    return "(f:Function)-[:CALLS]->(c:Function)" if reverse else "(c:Function)-[:CALLS]->(f:Function)"


def _variants(name: str) -> list[str]:
    """A candidate name and the forms a user may have meant: singular, without a module prefix."""
    name = name.strip("`'\"").removesuffix("()")
    out = [name]
    if "#" in name:  # Ruby's `Base#settings`: `Base.settings` where no singleton method shares the name
        out.append(name.replace("#", "."))
    if name.endswith("es") and len(name) > 4:
        out += [name[:-1], name[:-2]]
    elif name.endswith("s") and len(name) > 3 and not name.endswith("ss"):
        out.append(name[:-1])
    if "." in name and "/" not in name:
        head, _, last = name.rpartition(".")
        if head[:1].islower():  # `click.ParamType`: a module path, then the name
            out.append(last)
    return list(dict.fromkeys(out))


def _external(module_id: str) -> bool:
    """A module of another package (`mod:<repo>:ext:<family>:<name>`, see `ltm.ids` and extraction)."""
    return module_id.split(":", 2)[2:3] != [] and module_id.split(":", 2)[2].startswith("ext:")


def _in_path(file_path: str | None, path: str) -> bool:
    """`file_path` is `path` or ends with it (as the built query's `= $p OR ENDS WITH $sp`)."""
    return bool(file_path) and (file_path == path or file_path.endswith("/" + path))


def entity_history(g: GraphView, targets: list[str], kind: str, filters: Filters, limit: int = 10) -> list[str]:
    """The commits that introduced (oldest first) or modified (newest first) `targets`, best first."""
    m = _Matcher(g, filters, limit)
    commits = m.changes(targets, newest_first=kind != "introduced_by")
    if kind == "introduced_by":  # the first change of each target
        firsts = [m.changes([t], newest_first=False)[:1] for t in targets]
        commits = list(dict.fromkeys(c for f in firsts for c in f)) + commits
    return list(dict.fromkeys(commits))[:limit]


def entity_callers(g: GraphView, targets: list[str], reverse: bool, filters: Filters,
                   limit: int = 10) -> list[tuple[str, str]]:
    """(caller, target) for each of the functions `targets`, in their order: what calls each one (with
    `reverse`, what each one calls), at most `limit` in all."""
    m = _Matcher(g, filters, limit)
    if "CALLS" not in g.rels:
        return []
    out: dict[str, str] = {}
    for t in targets:
        for c in m.ids(_calls(reverse), "c", *m.at("f", "Function", [t])):
            out.setdefault(c, t)
    return list(out.items())[:limit]

