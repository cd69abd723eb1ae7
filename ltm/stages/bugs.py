"""The bugs stage: fix evidence, issue export, AFFECTS, SZZ and defect signals into the lake.

Reads the repository's commits from the lake (written by the commits stage), finds the fixes in
their messages, and writes `Bug`, `FIXES`, `AFFECTS`, `INTRODUCED_BY` and `FunctionDefects` for
the repository. SZZ is incremental: results are kept per fix sha in `szz_fixes`
(`ltm.bugs.fix_store`), so a run reads diffs (one `git log --stdin`) and derives introducing
commits only for fixes it has not derived yet: by one forward pass over the whole history
(`ltm.bugs.line_origins`) when there are many, by one `git blame` per changed file when there are
few (an incremental run); a rewritten history or changed settings derive everything again. The rows
are rebuilt from all results on every run, so a changed issue export (titles, features, report
dates) applies to old fixes too.
"""

from __future__ import annotations

import bisect
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import polars as pl

from ltm import ids, progress
from ltm.bugs import fix_store
from ltm.bugs.diffs import commit_diffs, is_doc_path
from ltm.bugs.evidence import EvidenceKind, FixEvidence, parse_fix_evidence
from ltm.bugs.issues import Issue, IssueExport, load_issue_export
from ltm.bugs.line_origins import analyze_fixes_forward
from ltm.bugs.szz import BLAME_FLAGS, MAX_DEFINITIONS, MAX_FILES, WORKERS, Candidate, Entity, FixResult, analyze_fixes
from ltm.extract.gc_pause import no_cycle_collection
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.spans import SpanCache
from ltm.lake import Lake, LakeWriter, TableStream
from ltm.redact import summary_note
from ltm.stages.history import history_cursor

_DIRECT = (EvidenceKind.FIXES_TRAILER, EvidenceKind.REVERT)
BATCH_ROWS = 10_000  # rows of a table held before they are written
COMMITS_PER_FIX = 25  # above one fix to derive in this many commits, one forward pass beats blame
TABLES = ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY", "FunctionDefects", "szz_fixes", "bugs_cursor")
"""The lake tables this stage owns in a repository's partition."""


@dataclass(frozen=True)
class BugsStats:
    """What one run of the bugs stage derived and wrote."""

    repo: str
    mode: str
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    fixes_blamed: int = 0
    fixes_reused: int = 0
    fix_commits: int = 0
    issues_loaded: int = 0
    bad_issue_lines: list[tuple[int, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    """What was dropped or skipped and why: feature_refs, docs_fixes, dropped_after_report, skipped_* ..."""
    redacted: dict[str, int] = field(default_factory=dict)
    """Secrets replaced by their marker before the rows were written, by kind (`ltm.redact`)."""

    def metadata(self) -> dict[str, object]:
        """The figures the `bugs` asset shows."""
        return {
            "repo": self.repo, **{f"rows_{t}": n for t, n in self.rows.items()},
            "fix_commits": self.fix_commits, "mode": self.mode, "fixes_blamed": self.fixes_blamed,
            "counts": {"fixes_blamed": self.fixes_blamed, "fixes_reused": self.fixes_reused,
                       "fix_commits": self.fix_commits, "issues_loaded": self.issues_loaded, **self.counts},
            "bad_issue_lines": len(self.bad_issue_lines),
            "bad_issue_lines_first": self.bad_issue_lines[:20],
            "redacted": self.redacted,
            "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        return (f"rows_Bug={self.rows.get('Bug', 0)} fix_commits={self.fix_commits} mode={self.mode} "
                f"fixes_blamed={self.fixes_blamed}{summary_note(self.redacted)}")


@dataclass
class _Bug:
    ref: str
    issue: Issue | None
    fixes: dict[str, FixEvidence] = field(default_factory=dict)  # fix sha -> its evidence
    introduced: list[tuple[str, Candidate | None, str]] = field(default_factory=list)  # sha, candidate, method


def _resolver(shas: list[str]):
    ordered = sorted(shas)

    def resolve(prefix: str) -> str | None:
        i = bisect.bisect_left(ordered, prefix)
        return ordered[i] if i < len(ordered) and ordered[i].startswith(prefix) else None

    return resolve


def _edge(src: str, dst: str, src_label: str, dst_label: str, repo: str, **props: object) -> dict:
    return {"src": src, "dst": dst, "src_label": src_label, "dst_label": dst_label, "repo": repo, **props}


def find_fixes(commits: pl.DataFrame, export: IssueExport | None, counts: Counter) -> dict[str, _Bug]:
    """Bugs by ref with their fixing commits; refs to feature issues and pull requests are dropped."""
    bugs: dict[str, _Bug] = {}
    for sha, message in zip(commits["sha"], commits["message"]):
        for ev in parse_fix_evidence(message or "", sha):
            issue = export.issues.get(ev.ref) if export else None
            if issue is not None and issue.kind == "feature":
                counts["feature_refs"] += 1
                continue
            bug = bugs.setdefault(ev.ref, _Bug(ev.ref, issue))
            bug.fixes[sha] = ev
    return bugs


def _signals(lake: Lake, repo_key: str, fix_results: dict[str, FixResult], bugs: dict[str, _Bug]) -> list[dict]:
    fixes: dict[str, set[str]] = defaultdict(set)
    for sha, r in fix_results.items():
        for e in r.affected.values():
            if e.label == "Function":
                fixes[e.id].add(sha)
    introduced: dict[str, set[str]] = defaultdict(set)
    for b in bugs.values():
        for _, cand, _ in b.introduced:
            if cand is not None and cand.entity is not None and cand.entity.label == "Function":
                introduced[cand.entity.id].add(b.ref)
    churn: Counter = Counter()  # MODIFIES is read a batch at a time: memory follows the functions, not the edges
    for batch in lake.scan("MODIFIES", repo_key, ["dst", "dst_label", "lines_added", "lines_deleted"]):
        mods = pl.from_arrow(batch).filter(pl.col("dst_label") == "Function")  # type: ignore[union-attr]
        lines = (pl.col("lines_added").fill_null(0) + pl.col("lines_deleted").fill_null(0)).sum().alias("c")
        churn.update(dict(mods.group_by("dst").agg(lines).iter_rows()))
    keys = sorted(set(fixes) | set(introduced) | set(churn))
    return [
        {"id": k, "repo": repo_key, "fix_count": len(fixes.get(k, ())), "churn": int(churn.get(k, 0)),
         "bugs_introduced": len(introduced.get(k, ()))}
        for k in keys
    ]


def _bug_row(repo_key: str, b: _Bug, messages: dict[str, str]) -> dict:
    bid = ids.bug_id(repo_key, b.ref)
    best = max(b.fixes.values(), key=lambda e: e.confidence)
    first_msg = messages[next(iter(b.fixes))]
    summary = first_msg.strip().splitlines()[0] if first_msg.strip() else b.ref
    i = b.issue
    title = i.title if i and i.title else summary
    text = f"{b.ref} {title}\n\n{i.body}" if i else f"{b.ref} {title}\n\n" + "\n\n".join(messages[s] for s in b.fixes)
    return {
        "id": bid, "repo": repo_key, "vector_id": ids.vector_id(bid), "ref": b.ref, "title": title,
        "kind": i.kind if i else "unknown", "state": i.state if i else None, "labels": list(i.labels) if i else [],
        "reported_at": i.created_at if i else None, "closed_at": i.closed_at if i else None,
        "evidence": best.kind.value, "confidence": best.confidence, "fix_commits": len(b.fixes), "text": text[:4000],
    }


def forward_pass_wins(fixes: int, commits: int) -> bool:
    """Whether one pass over all `commits` (`line_origins`) is cheaper than blaming `fixes` one by one.

    The pass costs about 0.4-3 ms a commit, a fix's blames 12-200 ms (requests, sqlalchemy;
    BENCHMARKS.md "#21 SZZ from one forward pass"), so it wins above one fix in 25 commits: every
    full run of a repository with a usual share of fixes, not an incremental run with a few new ones.
    """
    return fixes > 0 and fixes * COMMITS_PER_FIX >= commits


def _szz(
    repo: GitRepo, repo_key: str, lake: Lake, fix_shas: list[str], max_files: int, workers: int,
    cache_dir: Path | None, full: bool, commits: int = 0, max_definitions: int = MAX_DEFINITIONS,
) -> tuple[fix_store.Plan, dict[str, FixResult], dict[str, FixResult]]:
    """(plan, all results by sha, the ones derived in this run): only fixes not kept from before are derived,
    by one forward pass over the history when that is cheaper (`forward_pass_wins`), else by blame."""
    cursor = history_cursor(lake, repo_key)
    tip = cursor["tip_sha"] if cursor else None
    plan = fix_store.plan(lake, repo, repo_key, tip, fix_store.settings(max_files, BLAME_FLAGS, max_definitions), full)
    todo = [s for s in fix_shas if s not in plan.cached]
    new: dict[str, FixResult] = {}
    if todo:
        cache = SpanCache(cache_dir / "spans.sqlite" if cache_dir else None)
        try:
            # millions of spans and line origins, none of them cyclic: see gc_pause.py
            with progress.tracker("bugs", len(todo), "fixes blamed") as bar, no_cycle_collection():
                if forward_pass_wins(len(todo), commits):
                    for r in analyze_fixes_forward(repo, repo_key, todo, tip or "HEAD", max_files, cache,
                                                   max_definitions):
                        new[r.sha] = r
                        bar.advance()
                rest = [s for s in todo if s not in new]  # by blame: the few fixes, or those the pass did not reach
                if rest and cache_dir is not None:  # blame walks history: a commit-graph of our own makes it faster
                    repo.use_commit_graph(cache_dir / "commit-graph" / repo_key / "objects")
                for r in analyze_fixes(repo, repo_key, commit_diffs(repo, rest), max_files, workers,
                                       cache=cache, max_definitions=max_definitions) if rest else ():
                    new[r.sha] = r
                    bar.advance()
        finally:
            cache.close()
    results = {s: r for s in fix_shas if (r := plan.cached.get(s) or new.get(s)) is not None}
    return plan, results, new


def stage_bugs(
    repo_path: Path, repo_key: str, lake: Lake, issues_path: str | None = None, max_files: int = MAX_FILES,
    workers: int = WORKERS, cache_dir: Path | None = None, full: bool = False, batch_rows: int = BATCH_ROWS,
    max_definitions: int = MAX_DEFINITIONS,
) -> BugsStats:
    """Bug, FIXES, AFFECTS, INTRODUCED_BY and FunctionDefects rows for one repository.

    `cache_dir` holds the span cache the history stage shares (None: parse every blob);
    `full` ignores the kept SZZ results and derives every fix again; the rows are written
    `batch_rows` at a time (memory then holds the fixes' SZZ results, not the tables).
    """
    started = time.perf_counter()
    repo = GitRepo(repo_path)
    export = load_issue_export(issues_path) if issues_path else None
    commits = pl.from_arrow(lake.read("Commit", repo_key, columns=["sha", "message", "committed_at"]))
    counts: Counter = Counter()
    bugs = find_fixes(commits, export, counts)
    fix_shas = list(dict.fromkeys(s for b in bugs.values() for s in b.fixes))
    wanted = set(fix_shas)  # only the fixes' messages are kept, and no frame of every commit
    messages = {s: m for s, m in zip(commits["sha"], commits["message"].fill_null("")) if s in wanted}
    resolve = _resolver(commits["sha"].to_list())
    n_commits = commits.height
    del commits
    plan, results, new = _szz(repo, repo_key, lake, fix_shas, max_files, workers, cache_dir, full, n_commits,
                              max_definitions)
    for ref in list(bugs):  # a keyword-only "fix" that touches only docs is a docs fix, not a bug
        b = bugs[ref]
        if all(e.kind == EvidenceKind.KEYWORD for e in b.fixes.values()) and all(
            results[s].all_paths and all(is_doc_path(p) for p in results[s].all_paths) for s in b.fixes if s in results
        ):
            counts["docs_fixes"] += 1
            del bugs[ref]
    counts.update(f"skipped_{r.skipped}" for r in results.values() if r.skipped)
    with lake.write(repo_key) as w:
        written = _rows(repo_key, bugs, results, resolve, messages, counts, w, batch_rows)
        w.write("FunctionDefects", _signals(lake, repo_key, results, written))
        kept = new if plan.appends else results
        if plan.appends:  # the new results only: one small part file
            w.append("szz_fixes", [fix_store.to_row(repo_key, r, plan.setting) for r in kept.values()])
        else:
            _in_batches(w.stream("szz_fixes"), (fix_store.to_row(repo_key, r, plan.setting) for r in kept.values()),
                        batch_rows)
        w.write("bugs_cursor", [plan.cursor_row(repo_key, len(plan.cached) + len(kept) if plan.appends else len(kept))])
    return BugsStats(
        repo=repo_key, mode=plan.mode, rows=dict(w.rows), seconds=time.perf_counter() - started,
        fixes_blamed=len(new), fixes_reused=len(results) - len(new), fix_commits=len(results),
        issues_loaded=len(export.issues) if export else 0, bad_issue_lines=list(export.bad_lines) if export else [],
        counts=dict(counts), redacted=dict(w.redacted),
    )


def _in_batches(stream: TableStream, rows: Iterable[dict], batch_rows: int) -> None:
    """Hand `rows` to the stream `batch_rows` at a time."""
    held: list[dict] = []
    for row in rows:
        held.append(row)
        if len(held) >= batch_rows:
            stream.add(held)
            held = []
    stream.add(held)


def _rows(
    repo_key: str, bugs: dict[str, _Bug], results: dict[str, FixResult], resolve, messages: dict[str, str],
    counts: Counter, w: LakeWriter, batch_rows: int,
) -> dict[str, _Bug]:
    """Write Bug, FIXES, AFFECTS and INTRODUCED_BY, each `batch_rows` rows at a time; the bugs with
    their introducing commits filled in (for the defect signals)."""
    streams = {t: w.stream(t) for t in ("Bug", "FIXES", "AFFECTS", "INTRODUCED_BY")}
    rows: dict[str, list[dict]] = {t: [] for t in streams}

    def spill(last: bool = False) -> None:
        for t, held in rows.items():
            if held and (last or len(held) >= batch_rows):
                streams[t].add(held)
                rows[t] = []

    for b in bugs.values():
        bid = ids.bug_id(repo_key, b.ref)
        reported: datetime | None = b.issue.created_at if b.issue else None
        affected: dict[str, Entity] = {}
        for sha, ev in b.fixes.items():
            rows["FIXES"].append(_edge(ids.commit_id(repo_key, sha), bid, "Commit", "Bug", repo_key,
                                       evidence=f"{ev.kind.value}: {ev.evidence}"[:500], confidence=ev.confidence))
            r = results.get(sha)
            if r is not None:
                affected.update(r.affected)
            if ev.kind in _DIRECT and ev.introducing:
                full = resolve(ev.introducing)
                if full:
                    b.introduced.append((full, None, ev.kind.value))
                else:
                    counts["unresolved_introducing_refs"] += 1
        if not b.introduced:
            for sha in b.fixes:
                for c in results[sha].candidates if sha in results else []:
                    if reported is not None and c.committed_at > reported.timestamp():
                        counts["dropped_after_report"] += 1
                    elif resolve(c.sha):
                        b.introduced.append((c.sha, c, c.method))
                    else:
                        counts["candidates_outside_history"] += 1
        for e in affected.values():
            rows["AFFECTS"].append(_edge(bid, e.id, "Bug", e.label, repo_key))
        for sha, cand, method in b.introduced:
            ent = cand.entity if cand else None
            rows["INTRODUCED_BY"].append(_edge(
                bid, ids.commit_id(repo_key, sha), "Bug", "Commit", repo_key, method=method,
                function_id=ent.id if ent else None, function_name=ent.qualified_name if ent else None,
                file_path=cand.path if cand else None, blamed_lines=cand.lines if cand else None,
            ))
        rows["Bug"].append(_bug_row(repo_key, b, messages))
        spill()
    spill(last=True)
    return bugs
