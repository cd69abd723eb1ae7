"""The history of one branch as lake rows: commits, per-file changes, MODIFIES, RENAMED_FROM.

`mine_history` makes one pass over one `git log` stream (newest first) and one
`git cat-file --batch` process, parsing each distinct blob once (the span cache). It also keeps
the newest thing it saw of every entity and file it touched, so the stage can give entities that
no longer exist at the tip a node of their own (`removed_in`).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ltm import ids, progress
from ltm.extract.history.changes import NULL_BLOB, ChangeKind, FileChange, count_commits, iter_changes
from ltm.extract.filters import MAX_FILE_BYTES
from ltm.extract.gc_pause import no_cycle_collection
from ltm.extract.history.git_history import commit_kind
from ltm.extract.gitrepo import GitRepo
from ltm.extract.languages import language_for
from ltm.extract.history.modifications import SpanIndex, entity_changes, index_spans
from ltm.extract.history.parser_processes import ParserProcesses
from ltm.extract.history.spans import SpanCache
from ltm.extract.history.version_chains import SpanReader, forget

DEFAULT_SKIP_PATTERNS: tuple[str, ...] = (
    "node_modules/", "vendor/", "vendored/", "third_party/", "dist/", "build/", "*.min.js", "*.min.css",
    "*.map", "*.lock", "package-lock.json",
)
_LABEL = {"function": "Function", "class": "Class"}
CHUNK_COMMITS = 1000
LOOKAHEAD = 2  # chunks parsing while the rows of an earlier one are made
FIRST_CHUNK_COMMITS = 125  # the first chunks are small, so the parsers start early; then they double
CHUNK_FILES = 20_000  # file changes in a chunk: with LOOKAHEAD, what the chunks waiting for the parsers hold
INDEX_SPANS = 100_000  # spans of the indexed blobs kept for the next change
BATCH_ROWS = 50_000  # rows a sink receives at a time: what a large history holds in memory
_REGULAR = ("100644", "100755")
_NO_SPANS = index_spans([])


def skip_matcher(patterns: tuple[str, ...] | list[str]) -> re.Pattern[str] | None:
    """One regex for a skip list: `dir/` matches a folder anywhere; other globs the name or the path."""
    parts = []
    for p in patterns:
        if p.endswith("/"):
            parts.append(r"(?:^|.*/)" + fnmatch.translate(p[:-1]).removesuffix(r"\Z") + r"/.*")
        else:
            glob = fnmatch.translate(p).removesuffix(r"\Z")
            parts.append(f"(?:{glob})" if "/" in p else rf"(?:^|.*/){glob}")
    return re.compile("(?s:" + "|".join(parts) + r")\Z") if parts else None


@dataclass
class Seen:
    """The newest state of an entity or file the history touched."""

    label: str
    id: str
    path: str
    name: str | None = None
    qualified_name: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    blob: str | None = None
    removed_in: str | None = None
    newest: str | None = None  # the commit of this sighting
    # The newest commit that removed it, when a newer sighting did not (that one on a branch merged later)
    removal: str | None = None


@dataclass
class HistoryRows:
    """Rows per lake table, what was touched, and counts for the stage's metadata."""

    commits: list[dict] = field(default_factory=list)
    parents: list[tuple[str, str]] = field(default_factory=list)
    file_changes: list[dict] = field(default_factory=list)
    modifies: list[dict] = field(default_factory=list)
    renamed_from: list[dict] = field(default_factory=list)
    seen: dict[str, Seen] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)
    blobs_parsed: int = 0
    bytes_parsed: int = 0
    span_cache_hits: int = 0
    spans_derived: int = 0  # versions whose query ran only where they differ from a newer version

    def merged_after(self, tip: str) -> Callable[[str], str | None]:
        """A function of a mined commit: the oldest commit on `tip`'s first-parent line that descends from it
        (for a commit of a side branch, the merge that brought it in), from the parents mined; None if none."""
        children: dict[str, list[str]] = {}
        first_parent: dict[str, str] = {}

        @functools.cache
        def merged(sha: str) -> str | None:
            if not first_parent:  # built on the first question: most histories never ask one
                for parent, child in self.parents:
                    children.setdefault(parent, []).append(child)
                    first_parent.setdefault(child, parent)
            below, todo = set(), [sha]
            while todo:
                for child in children.get(todo.pop(), ()):
                    if child not in below:
                        below.add(child)
                        todo.append(child)
            found, commit = None, tip
            while commit in below:  # down the first parents while they descend from `sha`
                found, commit = commit, first_parent.get(commit)
            return found

        return merged

    def held(self) -> int:
        """Rows held for the lake tables (commits, file changes, MODIFIES, RENAMED_FROM)."""
        return len(self.commits) + len(self.file_changes) + len(self.modifies) + len(self.renamed_from)

    def take(self) -> "HistoryRows":
        """The held rows of the four streamed tables, which this object then forgets."""
        out = HistoryRows(self.commits, [], self.file_changes, self.modifies, self.renamed_from)
        self.commits, self.file_changes, self.modifies, self.renamed_from = [], [], [], []
        return out


def _edge(src: str, dst: str, src_label: str, dst_label: str, repo: str, **props: object) -> dict:
    return {"src": src, "dst": dst, "src_label": src_label, "dst_label": dst_label, "repo": repo, **props}


def _ranges(rs: list[tuple[int, int]]) -> list[dict]:
    return [{"start": s, "count": n} for s, n in rs]


class _Miner:
    def __init__(self, repo_key: str, reader: SpanReader, skip: re.Pattern[str] | None):
        self.key, self.reader, self.skip = repo_key, reader, skip
        self.out = HistoryRows()
        self._indexes: dict[tuple[str, str], SpanIndex | None] = {}
        self._indexed = 0  # spans in `_indexes`

    def _see(self, seen: Seen, sha: str, removed: bool) -> None:
        # Newest first: the first sighting is the newest state. A removal older than that sighting is kept
        # apart: when the entity is gone at the tip, the newest sighting was on a branch whose merge
        # dropped it (a merge is diffed against its first parent), and the removal is the one to name.
        old = self.out.seen.get(seen.id)
        if old is None:
            seen.removed_in = sha if removed else None
            seen.newest = sha
            self.out.seen[seen.id] = seen
        elif removed and old.removed_in is None and old.removal is None:
            old.removal = sha

    def _spans(self, blob: str, mode: str, path: str | None) -> SpanIndex | None:
        spec = language_for(path) if path else None
        if spec is None or blob == NULL_BLOB or mode not in _REGULAR:
            return _NO_SPANS
        key = (blob, spec.name)
        got = self._indexes.get(key, False)
        if got is False:
            spans = self.reader.spans(blob, spec)
            got = None if spans is None else index_spans(spans)
            # A blob is asked for by two neighbouring changes: keep few, and few spans (large files hold hundreds).
            if len(self._indexes) >= 4096 or self._indexed >= INDEX_SPANS:
                self._indexes.clear()
                self._indexed = 0
            self._indexes[key] = got
            self._indexed += len(got.by) if got is not None else 0
        return got

    def submit(self, chunk: list[tuple[dict, list[FileChange]]]) -> list:
        """Read every blob a chunk of commits will ask for in one batch, and start parsing them."""
        links = []
        for _, files in chunk:
            for fc in files:
                spec = language_for(fc.path)
                if fc.binary or spec is None:
                    continue
                sides = []
                for blob, mode, path in ((fc.old_blob, fc.old_mode, fc.old_path), (fc.new_blob, fc.new_mode, fc.new_path)):
                    side_spec = language_for(path) if path else None
                    ok = side_spec is spec and blob != NULL_BLOB and mode in _REGULAR
                    sides.append(blob if ok else None)
                if sides[0] is None and sides[1] is None:
                    continue
                links.append((spec, sides[0], sides[1], fc.hunks if sides[0] and sides[1] else [], fc.old_path,
                              fc.new_path))
        return self.reader.submit(links)

    def file(self, row: dict, fc: FileChange) -> None:
        sha, cid, kind = row["sha"], row["id"], row["kind"]
        key = self.key
        fid = ids.file_id(key, fc.path)
        spec = language_for(fc.path)
        self.out.file_changes.append({
            "repo": key, "commit_id": cid, "sha": sha, "committed_at": row["committed_at"], "path": fc.path,
            "old_path": fc.old_path, "new_path": fc.new_path, "change_kind": fc.kind.value,
            "similarity": fc.similarity, "binary": fc.binary, "lines_added": fc.lines_added,
            "lines_deleted": fc.lines_deleted, "old_blob": None if fc.old_blob == NULL_BLOB else fc.old_blob,
            "new_blob": None if fc.new_blob == NULL_BLOB else fc.new_blob, "language": spec.name if spec else None,
            "deleted_ranges": _ranges(fc.deleted), "added_ranges": _ranges(fc.added),
        })
        self.out.modifies.append(_edge(cid, fid, "Commit", "File", key, lines_added=fc.lines_added,
                                       lines_deleted=fc.lines_deleted, change_type=kind, change_kind=fc.kind.value))
        blob = None if fc.new_blob == NULL_BLOB else fc.new_blob
        self._see(Seen("File", fid, fc.path, blob=blob or fc.old_blob), sha, fc.kind is ChangeKind.DELETED)
        if fc.kind is ChangeKind.RENAMED and fc.old_path and fc.old_path != fc.path:
            old_fid = ids.file_id(key, fc.old_path)
            self.out.renamed_from.append(_edge(fid, old_fid, "File", "File", key))
            self._see(Seen("File", old_fid, fc.old_path, blob=fc.old_blob), sha, True)
        if spec is None or fc.binary:
            return
        old = self._spans(fc.old_blob, fc.old_mode, fc.old_path)
        new = self._spans(fc.new_blob, fc.new_mode, fc.new_path)
        if old is None or new is None:
            self.out.skipped["unparsed_blob"] += 1
            return
        changes, renames = entity_changes(fc, old, new)
        for ch in changes:
            label = _LABEL[ch.kind]
            eid = self._entity_id(ch.kind, ch.path, ch.span.qualified_name)
            self.out.modifies.append(_edge(cid, eid, "Commit", label, key, lines_added=ch.lines_added,
                                           lines_deleted=ch.lines_deleted, change_type=kind, change_kind=ch.change))
            s = ch.span
            self._see(Seen(label, eid, ch.path, s.name, s.qualified_name, s.line_start, s.line_end), sha,
                      ch.change == "deleted")
        for r in renames:
            label = _LABEL[r.kind]
            src = self._entity_id(r.kind, r.path, r.qualified_name)
            dst = self._entity_id(r.kind, r.old_path, r.old_qualified_name)
            self.out.renamed_from.append(_edge(src, dst, label, label, key))
            s = old.by[(r.kind, r.old_qualified_name)]
            self._see(Seen(label, dst, r.old_path, s.name, s.qualified_name, s.line_start, s.line_end), sha, True)

    def _entity_id(self, kind: str, path: str, qualified: str) -> str:
        make = ids.function_id if kind == "function" else ids.class_id
        return make(self.key, path, qualified)


def mine_history(
    repo: GitRepo, repo_key: str, rev: str, *, cache: SpanCache, since: str | None = None,
    max_commits: int | None = None, exclude: str | None = None,
    skip_patterns: tuple[str, ...] | list[str] = DEFAULT_SKIP_PATTERNS, max_file_bytes: int = MAX_FILE_BYTES,
    workers: int = 1, chunk_commits: int = CHUNK_COMMITS, sink: Callable[[HistoryRows], None] | None = None,
    batch_rows: int = BATCH_ROWS,
) -> HistoryRows:
    """Commits of `rev` (not reachable from `exclude`) with their changes and MODIFIES, newest first.

    With a `sink`, the rows of commits, file changes, MODIFIES and RENAMED_FROM are handed to it
    (in order) each time about `batch_rows` of them are held, and once at the end, and are not
    kept: memory then follows `batch_rows`, not the length of the history. The returned rows
    hold what was not handed over (all of it without a sink), the parents, what was seen and
    the counts.

    Commits are handled in chunks: the blobs a chunk needs are parsed (in `workers` processes
    when more than one, each reading the blobs it parses itself) before its rows are made; with
    workers, a chunk's rows are made while the next two chunks parse. Chunks start small and
    double up to `chunk_commits` (or `CHUNK_FILES` file changes), so the parsers start early; a
    chunk holds its file changes, never its blobs, and a longer chunk restarts fewer version
    chains with a parse from scratch. The rows depend on neither `workers` nor the chunk sizes.
    """
    skip = skip_matcher(tuple(skip_patterns))
    procs = ParserProcesses(workers, preload=SpanReader.__module__)
    try:
        with repo.blobs() as blobs, no_cycle_collection():
            reader = SpanReader(blobs, cache, max_file_bytes, procs)
            miner = _Miner(repo_key, reader, skip)
            chunk: list[tuple[dict, list[FileChange]]] = []
            pending: list[tuple[list, list]] = []  # chunks submitted for parsing, oldest first
            chunk_files = 0

            limit = min(FIRST_CHUNK_COMMITS, chunk_commits)

            def flush(last: bool = False) -> None:
                nonlocal chunk_files, limit
                pending.append((list(chunk), miner.submit(chunk)))
                chunk_files, limit = 0, max(1, min(limit * 2, chunk_commits))
                chunk.clear()
                while pending and (last or not procs or len(pending) > LOOKAHEAD):
                    rows, handles = pending.pop(0)
                    reader.collect(handles)
                    for row, files in rows:
                        for fc in files:
                            miner.file(row, fc)
                        if sink is not None and miner.out.held() >= batch_rows:
                            sink(miner.out.take())
                if sink is not None and last:
                    sink(miner.out.take())

            total = count_commits(repo, rev, since, max_commits, exclude) if progress.listened() else None
            bar = progress.tracker("commits", total, "commits")
            for cc in iter_changes(repo, repo_key, rev, since=since, max_commits=max_commits, exclude=exclude):
                bar.advance()
                files = []
                for fc in cc.files:
                    if skip is not None and skip.match(fc.path) and (fc.old_path is None or skip.match(fc.old_path)):
                        miner.out.skipped["skip_pattern"] += 1
                    else:
                        files.append(fc)
                row = cc.commit.row
                if cc.unreadable:
                    miner.out.skipped["missing_object"] += 1
                row["kind"] = commit_kind(row["message"], [fc.path for fc in files])
                miner.out.commits.append(row)
                miner.out.parents.extend((p, row["sha"]) for p in cc.commit.parents)
                chunk.append((row, files))
                chunk_files += len(files)
                if len(chunk) >= limit or chunk_files >= CHUNK_FILES:
                    flush()
            flush(last=True)
            bar.close()
            cache.flush()
    finally:
        procs.close()
        forget()  # the trees this process held for chains in the next chunk
    out = miner.out
    out.blobs_parsed, out.bytes_parsed = reader.parsed, reader.bytes_parsed
    out.span_cache_hits, out.spans_derived = cache.hits, reader.derived
    out.skipped["unparsed_blob_reads"] = reader.skipped
    if reader.missing:
        out.skipped["missing_object"] += reader.missing
    return out
