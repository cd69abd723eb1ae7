"""The extraction stages as plain functions: read one repository, write its lake partitions.

The history (commits) stage lives in `ltm.history_stage`.

The Dagster assets are thin wrappers around these; the CLI reaches them through the assets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ltm import ids
from ltm.extract.code.entities import extract_code
from ltm.extract.gitrepo import GitRepo
from ltm.history_stage import HistoryOptions, HistoryStats, stage_history
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION


@dataclass
class StageStats:
    """What a stage wrote, for the asset's metadata."""

    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


def register_repository(home: Home, path: str | Path) -> str:
    """Validate a local repository and register it; returns its partition key."""
    repo = GitRepo(path)
    repo.head()  # an empty repository is refused here, before anything is written
    reg = home.registry()
    for key, entry in reg.items():
        if Path(entry["path"]) == repo.path:
            return key
    base = ids.repo_key_from_name(repo.path.name)
    key = base
    n = 2
    while key in reg or key == MEMORY_PARTITION:  # that partition key holds imported memories
        key = f"{base}-{n}"
        n += 1
    home.register(key, repo.path)
    return key


def stage_commits(
    repo_path: Path, repo_key: str, lake: Lake, cache_dir: Path | None = None, opts: HistoryOptions | None = None
) -> HistoryStats:
    """The history stage: commits, file changes, MODIFIES, renames (see `ltm.history_stage`)."""
    return stage_history(repo_path, repo_key, lake, cache_dir, opts or HistoryOptions())


def stage_code(repo_path: Path, repo_key: str, lake: Lake) -> StageStats:
    """File, Module, Class and Function rows at HEAD and their code edges (imports, calls, bases)."""
    started = time.perf_counter()
    repo = GitRepo(repo_path)
    head = repo.head()
    out = extract_code(repo, repo_key, head)
    with lake.write(repo_key) as w:
        for table, rows in out.tables.items():
            w.write(table, rows)
    stats = StageStats(dict(w.rows), time.perf_counter() - started)
    stats.extra = {
        "head": head,
        "files_parsed": out.files_parsed,
        "bytes_parsed": out.bytes_parsed,
        "syntax_error_files": out.syntax_error_files,
        "skipped": dict(out.skipped),
        "languages": dict(out.languages),
        "workers": out.workers,
        "calls": {
            "resolved": out.resolution["calls_resolved"],
            "unresolved": out.resolution["calls_unresolved"],
            "external": out.resolution["calls_external"],
            "ambiguous": out.resolution["calls_ambiguous"],
            "outside_functions": out.resolution["calls_outside_functions"],
        },
        "imports_unresolved": out.resolution["imports_unresolved"],
        "bases_unresolved": out.resolution["bases_unresolved"],
    }
    return stats
