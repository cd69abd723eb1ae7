"""A change before it is committed: a unified diff (given, or a working tree against its HEAD) ->
the functions and classes its hunks touch in the current graph -> their callers, what changed with
them in history, and their risk from the defect signals.

Hunks are matched on their old side (the lines as the graph knows them), so the graph should be
built from the diff's base; the answer says which commit the graph was built from.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ltm.errors import QueryError, RepositoryError
from server.graph_reads import GraphReads

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MAX_DIFF_CHARS = 5_000_000
GIT_TIMEOUT_S = 60

_TOUCHED = {
    label: (f"MATCH (e:{label}) WHERE e.repo = $repo AND e.file_path = $path AND e.removed_in IS NULL "
            "AND e.line_start <= $last AND e.line_end >= $first "
            "RETURN e.id, e.qualified_name, e.line_start, e.line_end ORDER BY e.line_start")
    for label in ("Function", "Class")
}


@dataclass
class FileChange:
    """One file of a diff: its old and new path (None when added / deleted) and old-side line ranges."""

    old_path: str | None
    new_path: str | None
    ranges: list[tuple[int, int]] = field(default_factory=list)
    added: int = 0
    deleted: int = 0


def _strip(path: str) -> str | None:
    path = path.split("\t", 1)[0].strip()
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


def _ranges(lines: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(set(lines)):
        if out and n <= out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def parse_diff(text: str) -> list[FileChange]:
    """The files of a unified diff with the old-side lines it changes: each deleted line, and for an
    added line the line it follows. Context lines are not changes, whatever `-U` made the diff."""
    if len(text) > MAX_DIFF_CHARS:
        raise QueryError(f"the diff has {len(text)} characters, more than {MAX_DIFF_CHARS}: pass a smaller one")
    files: list[FileChange] = []
    changed: list[list[int]] = []
    current: FileChange | None = None
    old = left_old = left_new = 0  # the hunk's next old line, and the lines it has still to show
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if current is not None and (left_old or left_new):
            if line.startswith("-"):
                changed[-1].append(old)
                current.deleted += 1
                old, left_old = old + 1, left_old - 1
            elif line.startswith("+"):
                changed[-1].append(max(old - 1, 1))
                current.added += 1
                left_new -= 1
            elif line.startswith(" ") or line == "":
                old, left_old, left_new = old + 1, left_old - 1, left_new - 1
            elif not line.startswith("\\"):  # "\ No newline at end of file" is no line
                raise QueryError(f"the diff ends a hunk early at line {i + 1}: pass the diff as git wrote it")
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            current = FileChange(_strip(line[4:]), _strip(lines[i + 1][4:]))
            files.append(current)
            changed.append([])
        elif line.startswith("@@") and current is not None:
            m = _HUNK.match(line)
            if m is None:
                raise QueryError(f"cannot read the hunk header {line[:80]!r}: pass a unified diff (git diff)")
            old, left_old, left_new = int(m.group(1)), int(m.group(2) or 1), int(m.group(4) or 1)
            if left_old == 0:  # a pure insertion: the header names the line it follows
                old += 1
    for fc, lines_changed in zip(files, changed):
        fc.ranges = _ranges(lines_changed)
    if not files and text.strip():
        raise QueryError("no file in the diff: pass a unified diff with ---/+++ headers and @@ hunks (git diff)")
    return files


def working_tree_diff(path: str) -> str:
    """`git diff HEAD` of a repository's working tree (staged and unstaged), without context lines."""
    if not (Path(path) / ".git").exists():
        raise RepositoryError(f"{path} has no working tree (a mirror or not a checkout): pass the diff instead")
    cmd = ["git", "-c", "core.quotepath=off", "--no-pager", "-C", path, "diff", "HEAD", "-U0", "-M",
           "--no-color", "--no-ext-diff", "--"]
    try:
        res = subprocess.run(cmd, capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as e:
        raise RepositoryError(f"git diff in {path} took more than {GIT_TIMEOUT_S} s: pass the diff instead") from e
    if res.returncode != 0:
        err = res.stderr.decode(errors="replace").strip().splitlines()
        raise RepositoryError(f"git diff failed in {path}: {err[-1] if err else res.returncode}")
    return res.stdout.decode("utf-8", errors="replace")


def touched(reads: GraphReads, repo: str, changes: list[FileChange]) -> list[dict[str, Any]]:
    """The present functions and classes whose lines overlap a hunk, once each, in diff order."""
    out: dict[str, dict[str, Any]] = {}
    for fc in changes:
        if fc.old_path is None:
            continue
        for start, end in fc.ranges:
            for label, cypher in _TOUCHED.items():
                params = {"repo": repo, "path": fc.old_path, "first": start, "last": end}
                for r in reads.rows(cypher, params, ["id", "name", "line_start", "line_end"]):
                    out.setdefault(r["id"], {**r, "label": label, "file_path": fc.old_path, "repo": repo})
    return list(out.values())


def risk(signals: dict[str, Any], callers: int) -> tuple[str, list[str]]:
    """high / medium / low, with the reasons, from defect signals and fan-in."""
    reasons = []
    if signals.get("fix_count"):
        reasons.append(f"fixed {signals['fix_count']} time(s) before")
    if signals.get("bugs_introduced"):
        reasons.append(f"blamed for {signals['bugs_introduced']} bug(s)")
    if callers >= 3:
        reasons.append(f"{callers} callers")
    if signals.get("fix_count") or signals.get("bugs_introduced"):
        return "high", reasons
    return ("medium" if callers >= 3 else "low"), reasons
