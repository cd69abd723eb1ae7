"""The history stage (the `commits` asset): mine a branch's history into the lake, incrementally from a cursor.

The stage owns these lake tables of a repository: Repository, Commit, PARENT_OF, file_changes,
MODIFIES, RENAMED_FROM, past_functions, past_classes, past_files and history_cursor. The cursor
is the tip mined last; the next run mines only `cursor..tip` and appends its rows. When the
cursor is no longer an ancestor of the tip (force push, rebase) the history was rewritten: the
repository is mined again in full and the stage says so in its log.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ltm import ids
from ltm.extract.filters import MAX_FILE_BYTES
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history.mine import (
    BATCH_ROWS,
    CHUNK_COMMITS,
    DEFAULT_SKIP_PATTERNS,
    HistoryRows,
    Seen,
    mine_history,
)
from ltm.extract.history.spans import MEMORY_SPANS, SpanCache
from ltm.extract.history.version_chains import SpanReader
from ltm.extract.languages import language_for
from ltm.lake import Lake
from ltm.redact import summary_note

log = logging.getLogger("ltm.history")

_APPENDED = ("Commit", "PARENT_OF", "file_changes", "MODIFIES", "RENAMED_FROM")
_STREAMED = ("Commit", "file_changes", "MODIFIES", "RENAMED_FROM")  # written in batches as mined
_PAST = {"Function": "past_functions", "Class": "past_classes", "File": "past_files"}
TABLES = (*_APPENDED, *_PAST.values(), "Repository", "history_cursor")
"""The lake tables this stage owns in a repository's partition."""
_SPAN_KIND = {"Function": "function", "Class": "class"}


@dataclass(frozen=True)
class HistoryOptions:
    """What to mine: branch (None: the branch at HEAD), bounds, skipped paths, full re-mine."""

    branch: str | None = None
    since: str | None = None
    max_commits: int | None = None
    skip_patterns: tuple[str, ...] = DEFAULT_SKIP_PATTERNS
    full: bool = False
    max_file_bytes: int = MAX_FILE_BYTES
    until: str | None = None  # mine up to this commit of the branch (a backfill window), not its tip
    workers: int = 0
    """Processes that parse blobs; 0 means one per CPU (at most 4), 1 parses in-process."""
    batch_rows: int = BATCH_ROWS
    """Rows held in memory before they are written to the lake: peak memory follows it, not the history."""
    chunk_commits: int = CHUNK_COMMITS
    """Commits in a chunk that the parser processes take at once (chunks start small and double up to
    it): a chunk holds its file changes, not its blobs; longer chunks parse fewer versions from scratch."""
    memory_spans: int = MEMORY_SPANS
    """Spans the span cache holds in memory (the rest are read back from its sqlite file): the third bound."""

    def parse_workers(self) -> int:
        return self.workers if self.workers > 0 else min(4, os.cpu_count() or 1)


@dataclass(frozen=True)
class Mined:
    """What mining the new commits read and found (absent when the history was up to date)."""

    shallow: bool
    missing_parents: int
    blobs_parsed: int
    bytes_parsed: int
    span_cache_hits: int
    spans_derived: int
    skipped: dict[str, int]
    complete: bool


@dataclass(frozen=True)
class HistoryStats:
    """What one run of the stage did."""

    repo: str
    mode: str
    tip: str
    rows: dict[str, int] = field(default_factory=dict)
    commits_mined: int = 0
    commits_total: int = 0
    seconds: float = 0.0
    mined: Mined | None = None
    redacted: dict[str, int] = field(default_factory=dict)
    """Secrets replaced by their marker before the rows were written, by kind (`ltm.redact`)."""

    def metadata(self) -> dict[str, object]:
        """The figures the `commits` asset shows."""
        out: dict[str, object] = {
            "repo": self.repo, "mode": self.mode, "commits": self.commits_total, "commits_mined": self.commits_mined,
            "head": self.tip, **{f"rows_{t}": n for t, n in self.rows.items()},
        }
        if self.mined is not None:
            out.update(asdict(self.mined))
        out["redacted"] = self.redacted
        out["seconds"] = round(self.seconds, 3)
        out["commits_per_second"] = round(self.commits_mined / self.seconds, 1) if self.seconds else 0.0
        return out

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        line = f"mode={self.mode} commits={self.commits_total} commits_mined={self.commits_mined}"
        return line + (f" rows_MODIFIES={self.rows['MODIFIES']}" if "MODIFIES" in self.rows else "") + summary_note(self.redacted)


def history_cursor(lake: Lake, repo_key: str) -> dict | None:
    """The repository's history cursor (tip mined last, branch, commits), or None before the first run."""
    rows = lake.read("history_cursor", repo_key).to_pylist()
    return rows[0] if rows else None


def _plan(repo: GitRepo, cursor: dict | None, branch: str, tip: str, opts: HistoryOptions) -> tuple[str, str | None]:
    """(mode, exclude): full, incremental from the cursor, up_to_date, or rewritten."""
    if opts.full or cursor is None:
        return "full", None
    if cursor["branch"] != branch:
        log.warning("history of %s: branch changed from %s to %s, mining it in full", repo.path, cursor["branch"], branch)
        return "full", None
    if cursor["tip_sha"] == tip:
        return "up_to_date", None
    if repo.is_ancestor(cursor["tip_sha"], tip):
        return "incremental", cursor["tip_sha"]
    log.warning(
        "history of %s was rewritten (the last mined tip %s is not an ancestor of %s %s): mining it again in full",
        repo.path, cursor["tip_sha"][:12], branch, tip[:12],
    )
    return "rewritten", None


def _alive(repo: GitRepo, tip: str, seen: dict[str, Seen], reader: SpanReader, repo_key: str) -> set[str]:
    """Ids among `seen` that exist in the tree of `tip`."""
    tree = {e.path: e.blob for e in repo.tree(tip)}
    alive = {s.id for s in seen.values() if s.label == "File" and s.path in tree}
    paths = {s.path for s in seen.values() if s.label != "File" and s.path in tree}
    for path in paths:
        spec = language_for(path)
        spans = reader.spans(tree[path], spec) if spec else None
        for sp in spans or []:
            make = ids.function_id if sp.kind == "function" else ids.class_id
            alive.add(make(repo_key, path, sp.qualified_name))
    return alive


def _past_row(s: Seen, repo_key: str) -> dict:
    if s.label == "File":
        spec = language_for(s.path)
        return {"id": s.id, "repo": repo_key, "path": s.path, "language": spec.name if spec else None,
                "hash": s.blob, "removed_in": s.removed_in}
    return {"id": s.id, "repo": repo_key, "vector_id": None, "name": s.name, "qualified_name": s.qualified_name,
            "file_path": s.path, "line_start": s.line_start, "line_end": s.line_end, "removed_in": s.removed_in}


def _past_tables(lake: Lake, repo_key: str, mined: HistoryRows, alive: set[str], keep_old: bool,
                 merged_after: Callable[[str], str | None]) -> dict[str, list[dict]]:
    """Rows of what the history touched and the tip no longer holds, each with the commit it left in.

    Its newest sighting is a removal, else an older removal (the newer sighting was on a branch that a merge
    dropped), else the merge that brought that branch in (`merged_after`): never none, or readers would
    count it present.
    """
    out: dict[str, dict[str, dict]] = {label: {} for label in _PAST}
    if keep_old:
        for label, table in _PAST.items():
            out[label] = {r["id"]: r for r in lake.read(table, repo_key).to_pylist()}
    for s in mined.seen.values():
        rows = out[s.label]
        if s.id in alive:
            rows.pop(s.id, None)
            continue
        row = _past_row(s, repo_key)
        if row["removed_in"] is None and s.id in rows:
            row["removed_in"] = rows[s.id].get("removed_in")
        if row["removed_in"] is None:
            row["removed_in"] = s.removal or (s.newest and merged_after(s.newest))
        rows[s.id] = row
    return {_PAST[label]: sorted(rows.values(), key=lambda r: r["id"]) for label, rows in out.items()}


def stage_history(
    repo_path: Path, repo_key: str, lake: Lake, cache_dir: Path | None = None, opts: HistoryOptions = HistoryOptions()
) -> HistoryStats:
    """Mine the repository's history (incrementally when a cursor allows) and write its tables."""
    started = time.perf_counter()
    repo = GitRepo(repo_path)
    rev = opts.branch or "HEAD"
    tip = repo.head(opts.until or rev)
    branch = opts.branch or repo.branch() or "HEAD"
    cursor = history_cursor(lake, repo_key)
    mode, exclude = _plan(repo, cursor, branch, tip, opts)
    if mode == "up_to_date":
        return HistoryStats(repo_key, mode, tip, commits_total=int(cursor["commits"]), seconds=time.perf_counter() - started)
    incremental = mode == "incremental"
    cache = SpanCache(cache_dir / "spans.sqlite" if cache_dir else None, memory_spans=opts.memory_spans)
    known: set[str] = set()
    with lake.write(repo_key) as w:
        # Rows go to the lake in batches as they are mined (staged: nothing is live before the end).
        streams = {t: w.stream(t, keep=incremental) for t in _STREAMED}

        def sink(rows: HistoryRows) -> None:
            known.update(c["sha"] for c in rows.commits)
            for table, batch in zip(_STREAMED, (rows.commits, rows.file_changes, rows.modifies, rows.renamed_from)):
                streams[table].add(batch)

        try:
            mined = mine_history(repo, repo_key, tip, cache=cache, since=opts.since, max_commits=opts.max_commits,
                                 exclude=exclude, skip_patterns=opts.skip_patterns, max_file_bytes=opts.max_file_bytes,
                                 workers=opts.parse_workers(), sink=sink, batch_rows=opts.batch_rows,
                                 chunk_commits=opts.chunk_commits)
            with repo.blobs() as blobs:
                alive = _alive(repo, tip, mined.seen, SpanReader(blobs, cache, opts.max_file_bytes), repo_key)
        finally:
            cache.close()
        mined_commits = len(known)
        if incremental:
            known |= set(lake.read("Commit", repo_key, columns=["sha"]).column("sha").to_pylist())
        # In a shallow clone (or a bounded run) the oldest commits' parents are absent: no edge to them.
        parent_edges = [
            {"src": ids.commit_id(repo_key, p), "dst": ids.commit_id(repo_key, c), "src_label": "Commit",
             "dst_label": "Commit", "repo": repo_key}
            for p, c in mined.parents if p in known
        ]
        total = mined_commits + (int(cursor["commits"]) if incremental and cursor else 0)
        bounded = opts.since is not None or (opts.max_commits is not None and mined_commits >= opts.max_commits)
        complete = not bounded and (not incremental or bool(cursor and cursor["complete"]))
        (w.append if incremental else w.write)("PARENT_OF", parent_edges)
        for table, rows in _past_tables(lake, repo_key, mined, alive, incremental, mined.merged_after(tip)).items():
            w.write(table, rows)
        w.write("Repository", [{
            "id": ids.repository_id(repo_key), "repo": repo_key, "name": repo.path.name, "path": str(repo.path),
            "branch": branch, "head_sha": tip, "commit_count": total,
        }])
        w.write("history_cursor", [{
            "repo": repo_key, "branch": branch, "tip_sha": tip, "commits": total, "complete": complete,
            "since": opts.since, "max_commits": opts.max_commits, "mined_at": datetime.now(timezone.utc),
        }])
    figures = Mined(
        shallow=repo.is_shallow(), missing_parents=len(mined.parents) - len(parent_edges),
        blobs_parsed=mined.blobs_parsed, bytes_parsed=mined.bytes_parsed,
        span_cache_hits=mined.span_cache_hits, spans_derived=mined.spans_derived,
        skipped=dict(mined.skipped), complete=complete,
    )
    return HistoryStats(repo_key, mode, tip, dict(w.rows), mined_commits, total, time.perf_counter() - started,
                        figures, dict(w.redacted))
