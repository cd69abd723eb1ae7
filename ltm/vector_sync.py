"""The home's vector rows made equal to the lake, one repository at a time, skipping those unchanged.

A home-wide vectors step runs once per batch of repositories. Upserting every repository's rows
each time would cost the size of the home; instead the lake files a repository's rows are made
from (its `embeddings` and embedded node tables: path, size and modification time) and the current
table's name and model form a fingerprint per repository, kept in `<home>/cache/vectors_synced.json`.
A repository whose fingerprint matches and whose row count in the table is the one recorded is
skipped; deleting that file makes the next step upsert every repository again (it is a cache: the
lake stays the source of truth).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ltm.atomic import replace_json
from ltm.errors import LtmError
from ltm.ids import is_valid_repo_key
from ltm.lake import Lake
from ltm.schema import NODE_TABLES
from ltm.vectors import UpsertStats, VectorStore, vector_rows

STATE_FILE = "vectors_synced.json"


@dataclass
class SyncStats:
    """What one sync did: per repository upserted, the ones skipped as unchanged, the table's rows."""

    upserted: dict[str, UpsertStats] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)
    rebuilt_from_lake: list[str] = field(default_factory=list)
    table_rows: int = 0

    @property
    def rows(self) -> int:
        return sum(s.upserted for s in self.upserted.values())


def fingerprint(lake: Lake, repo: str, store: VectorStore) -> str:
    """A digest of what `vector_rows(lake, repo)` reads (file names, sizes, times) and of the table it goes to."""
    h = hashlib.sha1(json.dumps([store.table_name, store.model()], sort_keys=True, default=str).encode())
    tables = ["embeddings", *sorted(label for label, t in NODE_TABLES.items() if t.embedded)]
    for table in tables:
        for f in lake.files(table, repo):
            st = f.stat()
            h.update(f"{f.relative_to(lake.root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _read_state(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _rows_of(store: VectorStore, repo: str) -> int:
    return store.table().count_rows(f"repo = '{repo}'") if store.exists() else 0  # repo: a checked key


def sync_vectors(lake: Lake, store: VectorStore, repos: Iterable[str], cache: Path) -> SyncStats:
    """Upsert the vector rows of every repository in `repos` whose lake files changed since its last sync.

    The caller holds the home's `vectors` lock. A damaged table is rebuilt from the lake first. A
    repository's fingerprint is recorded only after its upsert succeeded, so a failure part way
    leaves the others to be done by the next call.
    """
    stats = SyncStats(rebuilt_from_lake=store.rebuild_if_damaged(lake))
    state_path = cache / STATE_FILE
    state = {} if stats.rebuilt_from_lake or not store.exists() else _read_state(state_path)
    keep: dict[str, Any] = {}
    try:
        for repo in sorted(set(repos)):
            if not is_valid_repo_key(repo):  # the key is used as a literal in the count filter
                raise LtmError(f"invalid repository key {repo!r}")
            fp = fingerprint(lake, repo, store)
            noted = state.get(repo)
            if isinstance(noted, dict) and noted.get("inputs") == fp and noted.get("rows") == _rows_of(store, repo):
                stats.unchanged.append(repo)
                keep[repo] = noted
                continue
            stats.upserted[repo] = store.upsert_repo(repo, vector_rows(lake, repo))
            # the first upsert may have created the table: fingerprint again
            keep[repo] = {"inputs": fingerprint(lake, repo, store), "rows": _rows_of(store, repo)}
    finally:
        cache.mkdir(parents=True, exist_ok=True)
        replace_json(state_path, keep)
    stats.table_rows = store.table().count_rows() if store.exists() else 0
    return stats


def summary(stats: SyncStats) -> dict[str, Any]:
    """The figures a run shows for one sync."""
    return {
        "repos_upserted": sorted(stats.upserted), "repos_unchanged": stats.unchanged, "rows": stats.rows,
        "inserted": sum(s.inserted for s in stats.upserted.values()),
        "updated": sum(s.updated for s in stats.upserted.values()),
        "deleted": sum(s.deleted for s in stats.upserted.values()),
        "table_rows": stats.table_rows,
    }
