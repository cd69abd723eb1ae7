"""The bugs stage's memory of SZZ work: one `szz_fixes` lake row per fix sha, and its cursor.

A fix's SZZ result (affected entities, introducing candidates, skip reason) depends only on the
fix commit, its ancestors and the settings (blame flags, file limit, span queries), so it is kept
by sha and reused on the next run; only fixes missing from it are blamed. What can change between
runs (the issue export, report dates, which refs are features) is applied when rows are built.
The cursor names the history tip the results were derived for: when that tip is no longer an
ancestor of the lake's tip (force push, rebase) or the settings changed, everything is derived
again.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ltm.bugs.szz import Candidate, Entity, FixResult
from ltm.extract.gitrepo import GitRepo
from ltm.extract.languages import LANGUAGES
from ltm.extract.history.spans import query_version
from ltm.lake import Lake

log = logging.getLogger("ltm.bugs")

_VERSION = "1"  # bump when FixResult's meaning changes


def settings(max_files: int, flags: tuple[str, ...], max_definitions: int) -> str:
    """What a cached result was derived with: the format version, file and definition limits, blame flags,
    span queries."""
    queries = hashlib.sha1(",".join(f"{n}={query_version(n)}" for n in sorted(LANGUAGES)).encode()).hexdigest()[:12]
    limits = f"max_files={max_files};max_definitions={max_definitions}"
    return f"v{_VERSION};{limits};flags={' '.join(flags)};queries={queries}"


def _entity(label: str | None, eid: str | None, name: str | None, start: int | None, end: int | None) -> Entity | None:
    return Entity(label, eid, name, start, end) if eid else None  # type: ignore[arg-type]


def to_row(repo_key: str, r: FixResult, setting: str) -> dict:
    """A FixResult as a `szz_fixes` row."""
    return {
        "repo": repo_key, "sha": r.sha, "settings": setting, "skipped": r.skipped, "all_paths": r.all_paths,
        "affected": [{"label": e.label, "id": e.id, "qualified_name": e.qualified_name, "line_start": e.line_start,
                      "line_end": e.line_end} for e in r.affected.values()],
        "candidates": [{
            "sha": c.sha, "path": c.path, "committed_at": c.committed_at, "lines": c.lines, "method": c.method,
            "entity_label": c.entity.label if c.entity else None, "entity_id": c.entity.id if c.entity else None,
            "entity_name": c.entity.qualified_name if c.entity else None,
            "entity_start": c.entity.line_start if c.entity else None,
            "entity_end": c.entity.line_end if c.entity else None,
        } for c in r.candidates],
    }


def from_row(row: dict) -> FixResult:
    """A `szz_fixes` row back as the FixResult it was written from."""
    affected = {a["id"]: Entity(a["label"], a["id"], a["qualified_name"], a["line_start"], a["line_end"])
                for a in row["affected"] or []}
    candidates = [
        Candidate(c["sha"], c["path"], c["committed_at"],
                  _entity(c["entity_label"], c["entity_id"], c["entity_name"], c["entity_start"], c["entity_end"]),
                  c["lines"], c["method"])
        for c in row["candidates"] or []
    ]
    return FixResult(row["sha"], affected, candidates, row["skipped"], list(row["all_paths"] or []))


@dataclass
class Plan:
    """How this run derives SZZ: mode (full, incremental, up_to_date, rewritten) and the reusable results."""

    mode: str
    tip: str | None
    setting: str
    cached: dict[str, FixResult] = field(default_factory=dict)

    @property
    def appends(self) -> bool:
        return self.mode in ("incremental", "up_to_date")

    def cursor_row(self, repo_key: str, fixes: int) -> dict:
        return {"repo": repo_key, "tip_sha": self.tip, "settings": self.setting, "fixes": fixes,
                "derived_at": datetime.now(timezone.utc)}


def plan(lake: Lake, repo: GitRepo, repo_key: str, tip: str | None, setting: str, full: bool = False) -> Plan:
    """Compare the bugs cursor with the history stage's `tip` (None: never mined) and load what can be reused."""
    prev = lake.read("bugs_cursor", repo_key).to_pylist()
    cursor = prev[0] if prev else None
    if full or cursor is None or tip is None:
        return Plan("full", tip, setting)
    if cursor["settings"] != setting:
        log.info("bugs of %s: SZZ settings changed, deriving every fix again", repo_key)
        return Plan("full", tip, setting)
    if cursor["tip_sha"] == tip:
        mode = "up_to_date"
    elif cursor["tip_sha"] and repo.is_ancestor(cursor["tip_sha"], tip):
        mode = "incremental"
    else:
        log.warning("bugs of %s: history was rewritten (%s is not an ancestor of %s), deriving every fix again",
                    repo_key, (cursor["tip_sha"] or "")[:12], tip[:12])
        return Plan("rewritten", tip, setting)
    rows = lake.read("szz_fixes", repo_key).to_pylist()
    return Plan(mode, tip, setting, {r["sha"]: from_row(r) for r in rows if r["settings"] == setting})
