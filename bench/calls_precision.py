"""Precision of CALLS edges per resolution rule on real repositories, against an oracle.

    PYTHONPATH=<tree>:/tmp/s16-calls-lib .venv/bin/python bench/calls_precision.py CLONE [CLONE ...] [--json]
        [--sites-out FILE]  # every resolved call site: its rule, jedi's answer and the verdict, JSON lines;
                            # then each site jedi resolves into the repository that no edge reaches ("missed")
        [--files N]         # only the call sites of N random files (seed 16): sqlalchemy
    PYTHONPATH=<tree> .venv/bin/python bench/calls_precision.py CLONE --hand bench/eval/calls_hand_<repo>.jsonl
    PYTHONPATH=<tree> .venv/bin/python bench/calls_precision.py CLONE --draw 120 --sample-out FILE [--confidence 0.8]
    PYTHONPATH=<tree> .venv/bin/python bench/calls_precision.py CLONE [CLONE ...] --counts  # edges per confidence

CLONE is a checkout at the commit to measure, with a clean tree. The code under test is whatever
`ltm` is first on PYTHONPATH (run once per tree for a before / after). The extraction is the
pipeline's own `extract_code` (one worker); the bench only records, for each call site the resolver
sees, which rule resolved it (a subclass of `Resolver` that wraps `resolve_call`), and finds the
site's position with the same query pass `parse.py` makes.

Oracle, Python: jedi (bench-only; the product never imports it), installed apart with `pip install
--target /tmp/s16-calls-lib jedi` and put on PYTHONPATH for this script only. `Script.goto(line,
column, follow_imports=True)` at the callee's name, with the clone's root (and `src/`, `lib/`) first
on jedi's path, then this interpreter's. A site's verdict: `ok` when jedi names the function the
edge points to (a class: its own `__init__`), `wrong` when jedi names something else (another
function of the repository, or a definition outside it: `dict.get` in typeshed, another package's
method), `unknown` when jedi names nothing or a non-function of the repository. Precision = ok / (ok
+ wrong). Recall: of the sites jedi resolves to a function of the repository (in a function:
module-level sites give no edge), the share whose caller has a CALLS edge to it (any rule). Override
edges (0.5 to each override of a stub) and functions passed as values (0.7) are not call sites at a
position jedi can check and are not counted.

Any language, by hand: `--draw N` writes a random sample (seed 16) of unique-method edges with one
call site each and its source line to label (`verdict`: ok / wrong / unknown, `why`); `--hand FILE`
re-scores such a labelled file against the tree under test: per verdict, how many of the labelled
edges are still guessed (0.3), made by another rule (from another call site of the same caller), or
gone; `precision_guessed` is ok / (ok + wrong) among those still guessed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

from tree_sitter import Parser, QueryCursor

import ltm.extract.code.entities as entities
from ltm.extract.code.resolve import Resolver
from ltm.extract.gitrepo import GitRepo
from ltm.graph.entity_ids import plain_id
from ltm.extract.languages import ts_language, ts_query
from ltm.extract.parse import REF, _pattern_roles

RULES = ("scope", "self", "import", "attribute", "variable", "unique function", "named object", "unique method")


def rule_of(call: tuple, conf: float, self_names: tuple) -> str:
    """The rule behind a resolved call site, from its confidence and receiver (resolve.py's constants)."""
    name, recv, kind = call[:3]
    if conf == 0.3:
        return "unique method"
    if conf == 0.5:
        return "unique function" if recv is None else "named object"
    if conf == 0.8:  # `self.router.m()`: an attribute's class; `x.m()`: a variable's (`x = Foo()`, `x: Foo`)
        return "attribute" if "." in (recv or "") else "variable"
    if recv is not None and recv in self_names:
        return "self"
    return "scope" if conf == 1.0 else "import"


class Recorder(Resolver):
    """The pipeline's resolver, keeping each call site it saw and what it answered."""

    last: Recorder | None = None

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.sites: list[tuple] = []
        Recorder.last = self

    def resolve_call(self, f, call, *rest):
        hit = super().resolve_call(f, call, *rest)
        self.sites.append((f, call, hit))
        return hit


def extract(clone: Path):
    entities.Resolver = Recorder
    try:
        out = entities.extract_code(GitRepo(clone), "k", workers=1)
    finally:
        entities.Resolver = Resolver
    return out, Recorder.last


def offsets(spec, src: bytes, calls: list[tuple]) -> list[int | None]:
    """Byte offset of each call site's callee name, aligned with `parse_source`'s `calls`."""
    roles = _pattern_roles(spec.name)
    raw = []
    tree = Parser(ts_language(spec.name)).parse(src)
    for pattern, caps in QueryCursor(ts_query(spec.name)).matches(tree.root_node):
        role = roles[pattern]
        if role not in ("call", "call.receiver", "call.new", "ref"):
            continue
        n = caps[{"call.new": "call.new", "ref": "ref.name"}.get(role, "call.name")][0]
        recv = caps.get("ref.receiver" if role == "ref" else "call.receiver")
        raw.append((n.start_byte, n.text.decode("utf-8", "replace"), role == "ref" and not (recv and recv[0].text)))
    raw.sort(key=lambda r: r[0])
    kept = [r for r in raw if not r[2]]  # a bare name passed as a value may be dropped (a local)
    idx = [i for i, c in enumerate(calls) if not (c[2] == REF and c[1] is None)]
    assert len(kept) == len(idx) and all(calls[i][0] == r[1] for i, r in zip(idx, kept)), spec.name
    out: list[int | None] = [None] * len(calls)
    for i, r in zip(idx, kept):
        out[i] = r[0]
    return out


def line_col(src: bytes, at: int) -> tuple[int, int]:
    before = src[:at].decode("utf-8", "replace")
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1)


class Jedi:
    """jedi's answer for a call site: a set of (path, line, name, type) it names."""

    def __init__(self, root: Path):
        import jedi

        own = {str(Path(__file__).resolve().parents[1]), *(p for p in sys.path if "s16-calls-lib" in p)}
        path = [str(root / "src"), str(root / "lib"), str(root)] + [p for p in sys.path if p and p not in own]
        self.jedi, self.root = jedi, root.resolve()
        self.project = jedi.Project(root, sys_path=path, smart_sys_path=False)
        self.scripts: dict[str, object] = {}

    def goto(self, path: str, src: bytes, line: int, col: int) -> list[tuple]:
        s = self.scripts.get(path)
        if s is None:
            s = self.scripts[path] = self.jedi.Script(src.decode("utf-8", "replace"), path=str(self.root / path),
                                                      project=self.project)
        try:
            defs = s.goto(line, col, follow_imports=True)
            if any(d.type in ("statement", "param") for d in defs):  # a variable: what jedi infers it holds
                defs = s.infer(line, col)
        except Exception:  # noqa: BLE001 - jedi's own failures: no answer
            return []
        out = []
        for d in defs:
            mp = d.module_path
            rel = None
            if mp is not None:
                try:
                    rel = str(Path(mp).resolve().relative_to(self.root))
                except ValueError:
                    rel = None
            out.append((rel, d.line, d.name, d.type))
        return out


def constructors(out) -> dict[tuple, str]:
    """("class", path, line) -> the `__init__` that `Foo()` runs: its own or the nearest base's (EXTENDS)."""
    init = {e["src"]: plain_id(e["dst"]) for e in out.tables["HAS_METHOD"]
            if plain_id(e["dst"]).endswith(".__init__")}  # overloads: one identity
    bases = defaultdict(list)
    for e in out.tables["EXTENDS"]:
        bases[e["src"]].append(e["dst"])

    def find(cls: str, depth: int = 0) -> str | None:
        if cls in init or depth > 4:
            return init.get(cls)
        return next((hit for b in bases[cls] if (hit := find(b, depth + 1))), None)

    return {("class", c["file_path"], c["line_start"]): hit for c in out.tables["Class"] if (hit := find(c["id"]))}


def verdict(answer: list[tuple], target: dict | None, fn_at: dict) -> str:
    """ok / wrong / unknown for an edge to `target` (a Function row) given jedi's answer."""
    if not answer:
        return "unknown"
    named = set()
    for rel, line, name, typ in answer:
        if rel is None:
            named.add("external")
        elif typ == "function":
            named.add(fn_at.get((rel, name, line), "other"))
        elif typ == "class":
            named.add(fn_at.get(("class", rel, line), "class-without-init"))
        else:
            return "unknown"  # a variable, a parameter, a module: jedi did not reach a definition
    if target is not None and plain_id(target["id"]) in named:
        return "ok"
    if named & {"other", "class-without-init"} and target is None:
        return "unknown"
    return "wrong"


def measure(clone: Path, sites_out: Path | None, files: int | None = None) -> dict:
    out, r = extract(clone)
    fns = {row["id"]: row for row in out.tables["Function"]}
    # a function's identity without the parameters or ordinal of a redefinition or overload (jedi names the first)
    fn_at = {(row["file_path"], row["name"], row["line_start"]): plain_id(row["id"]) for row in fns.values()}
    fn_at.update(constructors(out))
    edges = {(e["src"], e["dst"]): e["confidence"] for e in out.tables["CALLS"]}
    callees = defaultdict(set)
    for src_id, dst_id in edges:
        callees[src_id].add(dst_id)
    by_file = defaultdict(list)
    for f, call, hit in r.sites:
        by_file[f.path].append((f, call, hit))
    oracle = Jedi(clone) if any(f.spec.name == "python" for f in r.files) else None
    per_rule = defaultdict(Counter)
    edge_verdicts: dict[tuple, list[str]] = defaultdict(list)  # (src, dst, rule) -> site verdicts
    recall = Counter()
    dump = []
    paths = sorted(by_file)
    if files:  # a large repository: the call sites of a random sample of its files (the whole graph is built)
        paths = sorted(random.Random(16).sample(paths, min(files, len(paths))))
    for path in paths:
        sites = by_file[path]
        f = sites[0][0]
        if f.spec.name != "python" or oracle is None:
            continue
        src = (clone / path).read_bytes()
        at = offsets(f.spec, src, f.facts["calls"])
        index = {id(c): i for i, c in enumerate(f.facts["calls"])}
        for _, call, hit in sites:
            line, col = line_col(src, at[index[id(call)]])
            answer = oracle.goto(path, src, line, col)
            caller = f.def_ids[call[3]]
            if hit is not None:
                rule = rule_of(call, hit[1], f.spec.self_names)
                v = verdict(answer, fns.get(hit[0]), fn_at)
                per_rule[rule]["sites"] += 1
                per_rule[rule][v] += 1
                edge_verdicts[(caller, hit[0], rule)].append(v)
                dump.append({"rule": rule, "site": f"{path}:{line}", "receiver": call[1], "name": call[0],
                             "caller": fns[caller]["qualified_name"], "target": f"{fns[hit[0]]['file_path']}:"
                             f"{fns[hit[0]]['qualified_name']}", "jedi": [list(a) for a in answer[:3]], "verdict": v})
            repo_fns = {fn_at.get((rel, name, line)) for rel, line, name, typ in answer if rel and typ == "function"}
            repo_fns |= {fn_at.get(("class", rel, line)) for rel, line, name, typ in answer if rel and typ == "class"}
            repo_fns.discard(None)
            if repo_fns:
                recall["oracle_sites"] += 1
                found = any(plain_id(d) in repo_fns for d in callees[caller])
                recall["found"] += found
                if not found:  # a site jedi resolves into the repository that no edge of its caller reaches
                    dump.append({"rule": None, "site": f"{path}:{line}", "receiver": call[1], "name": call[0],
                                 "caller": fns[caller]["qualified_name"], "target": None,
                                 "jedi": [list(a) for a in answer[:3]], "verdict": "missed"})
    rules = {}
    for rule in RULES:
        c = per_rule[rule]
        ev = [v for (s, d, ru), v in edge_verdicts.items() if ru == rule]
        e_ok = sum("ok" in v for v in ev)
        e_wrong = sum("ok" not in v and "wrong" in v for v in ev)
        rules[rule] = {"sites": c["sites"], "sites_ok": c["ok"], "sites_wrong": c["wrong"],
                       "sites_unknown": c["unknown"],
                       "site_precision": round(c["ok"] / (c["ok"] + c["wrong"]), 3) if c["ok"] + c["wrong"] else None,
                       "edges": len(ev), "edges_ok": e_ok, "edges_wrong": e_wrong,
                       "edge_precision": round(e_ok / (e_ok + e_wrong), 3) if e_ok + e_wrong else None}
    if sites_out:
        sites_out.write_text("".join(json.dumps(x) + "\n" for x in dump))
    conf = Counter(edges.values())
    return {"clone": str(clone), "calls_edges": len(edges),
            "edges_by_confidence": {str(k): v for k, v in sorted(conf.items())},
            "rules": rules, "recall": {**recall, "recall": round(recall["found"] / recall["oracle_sites"], 3)
                                       if recall["oracle_sites"] else None},
            "resolution": {k: v for k, v in out.resolution.items() if k.startswith("calls")}}


def draw(clone: Path, n: int, sample_out: Path, confidence: float = 0.3) -> None:
    """A random sample of the edges of one confidence (unique-method edges by default), one call site each,
    to label by reading the source."""
    out, r = extract(clone)
    fns = {row["id"]: row for row in out.tables["Function"]}
    first: dict[tuple, tuple] = {}
    for f, call, hit in r.sites:
        if hit is not None and hit[1] == confidence:
            first.setdefault((f.def_ids[call[3]], hit[0]), (f, call))
    keys = sorted(first)
    random.Random(16).shuffle(keys)
    rows = []
    for key in keys[:n]:
        f, call = first[key]
        src = (clone / f.path).read_bytes()
        line, _ = line_col(src, offsets(f.spec, src, f.facts["calls"])[f.facts["calls"].index(call)])
        caller, target = fns[key[0]], fns[key[1]]
        rows.append({"caller": f"{caller['file_path']}:{caller['qualified_name']}", "target":
                     f"{target['file_path']}:{target['qualified_name']}", "receiver": call[1], "name": call[0],
                     "site": f"{f.path}:{line}", "code": src.decode("utf-8", "replace").splitlines()[line - 1].strip(),
                     "verdict": "", "why": ""})
    sample_out.write_text("".join(json.dumps(x) + "\n" for x in rows))
    print(f"{len(rows)} of {len(keys)} edges at {confidence} written to {sample_out}")


def counts(clone: Path) -> dict:
    """Any language, no oracle: CALLS edges per confidence and the resolver's counts of call sites."""
    out, _ = extract(clone)
    by = Counter(e["confidence"] for e in out.tables["CALLS"])
    return {"clone": str(clone), "calls_edges": sum(by.values()), "edges_by_confidence": dict(sorted(by.items())),
            "resolution": dict(sorted(out.resolution.items()))}


def hand(clone: Path, labelled: Path) -> dict:
    """Labelled unique-method edges: how many of each verdict the tree under test still makes."""
    out, _ = extract(clone)
    fns = {row["id"]: row for row in out.tables["Function"]}
    name = {rid: f"{row['file_path']}:{row['qualified_name']}" for rid, row in fns.items()}
    made = {(name[e["src"]], name[e["dst"]]): e["confidence"] for e in out.tables["CALLS"]}
    rows = [json.loads(x) for x in labelled.read_text().splitlines() if x.strip()]
    c = Counter()
    for row in rows:  # still guessed (0.3), made by another rule from another call site, or gone
        conf = made.get((row["caller"], row["target"]))
        c[(row["verdict"], "dropped" if conf is None else "guessed" if conf == 0.3 else "other rule")] += 1
    ok, wrong = c[("ok", "guessed")], c[("wrong", "guessed")]
    labelled_ok = sum(n for (v, _), n in c.items() if v == "ok")
    labelled_wrong = sum(n for (v, _), n in c.items() if v == "wrong")
    return {"labelled": len(rows), "by_verdict": {f"{v} {k}": n for (v, k), n in sorted(c.items())},
            "precision_labelled": (round(labelled_ok / (labelled_ok + labelled_wrong), 3)
                                   if labelled_ok + labelled_wrong else None),
            "precision_guessed": round(ok / (ok + wrong), 3) if ok + wrong else None,
            "calls_edges": len(made), "unique_method_edges": sum(1 for v in made.values() if v == 0.3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clones", nargs="+", type=Path)
    ap.add_argument("--sites-out", type=Path, help="Resolved sites, rules and verdicts (one clone).")
    ap.add_argument("--files", type=int, help="Ask jedi about the call sites of this many random files only.")
    ap.add_argument("--draw", type=int, help="Write a random sample of this many unique-method edges to label.")
    ap.add_argument("--confidence", type=float, default=0.3,
                    help="With --draw: sample the edges of this confidence (0.8: a variable's or attribute's class).")
    ap.add_argument("--sample-out", type=Path)
    ap.add_argument("--hand", type=Path, help="Re-score a labelled sample.")
    ap.add_argument("--counts", action="store_true", help="Only count edges per confidence (any language).")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.draw:
        draw(a.clones[0], a.draw, a.sample_out, a.confidence)
        return
    results = [counts(c) if a.counts else hand(c, a.hand) if a.hand else measure(c, a.sites_out, a.files)
               for c in a.clones]
    if a.json:
        print(json.dumps(results, indent=1))
        return
    for res in results:
        print(json.dumps({k: v for k, v in res.items() if k != "rules"}))
        for rule, row in res.get("rules", {}).items():
            print(f"  {rule:16} " + " ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
