"""The repository stage: a registered repository made ready to mine (a URL cloned or fetched, a path validated).

Registration itself (keys, the registry) is `ltm.repos`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from ltm.home import Home
from ltm.lake import Lake
from ltm.repos import sync_repository
from ltm.stages import bugs, history

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RepositoryStats:
    """Where the repository is, its head and branch, and whether it was fetched."""

    repo: str
    head: str
    branch: str | None
    source: str
    fetched: bool
    seconds: float = 0.0
    healed: tuple[str, ...] = ()
    """Lake tables of the repository that were damaged and removed, so this run writes them anew."""

    def metadata(self) -> dict[str, object]:
        """The figures the `repository` asset shows."""
        return {"repo": self.repo, "head": self.head, "branch": self.branch or "(detached)", "source": self.source,
                "fetched": self.fetched, "healed": list(self.healed), "seconds": round(self.seconds, 3)}

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        line = f"head={self.head[:12]} branch={self.branch or '(detached)'} fetched={self.fetched}"
        return line + (f" healed={','.join(self.healed)}" if self.healed else "")


def stage_repository(home: Home, repo_key: str) -> RepositoryStats:
    """Clone or fetch a registered URL, validate a registered path, heal its lake partition; report its head."""
    started = time.perf_counter()
    state = sync_repository(home, repo_key)
    healed = heal_partition(home.open_lake(), repo_key)
    return RepositoryStats(state.key, state.head, state.branch, state.url or str(state.path), state.fetched,
                           time.perf_counter() - started, tuple(healed))


def heal_partition(lake: Lake, repo_key: str) -> list[str]:
    """Remove the repository's damaged lake tables (truncated or overwritten Parquet files) so the
    stages of this run write them anew; returns what was removed.

    The history and bugs stages extend what they wrote before (appended rows, cursors): when one of
    their tables is damaged, all of that stage's tables go, so it starts over in full. Every other
    table is rewritten whole by its stage on every run.
    """
    damaged = set(lake.damaged(repo_key))
    if not damaged:
        return []
    for owned in (history.TABLES, bugs.TABLES):
        if damaged & set(owned):
            damaged |= set(owned)
    removed = sorted(damaged)
    log.warning("%s: damaged lake tables %s removed; this run rebuilds them from the repository",
                repo_key, ", ".join(removed))
    lake.drop_tables(repo_key, removed)
    return removed
