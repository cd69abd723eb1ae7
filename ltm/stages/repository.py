"""The repository stage: a registered repository made ready to mine (a URL cloned or fetched, a path validated).

Registration itself (keys, the registry) is `ltm.repos`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ltm.home import Home
from ltm.repos import sync_repository


@dataclass(frozen=True)
class RepositoryStats:
    """Where the repository is, its head and branch, and whether it was fetched."""

    repo: str
    head: str
    branch: str | None
    source: str
    fetched: bool
    seconds: float = 0.0

    def metadata(self) -> dict[str, object]:
        """The figures the `repository` asset shows."""
        return {"repo": self.repo, "head": self.head, "branch": self.branch or "(detached)", "source": self.source,
                "fetched": self.fetched, "seconds": round(self.seconds, 3)}

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        return f"head={self.head[:12]} branch={self.branch or '(detached)'} fetched={self.fetched}"


def stage_repository(home: Home, repo_key: str) -> RepositoryStats:
    """Clone or fetch a registered URL, validate a registered path; report its head."""
    started = time.perf_counter()
    state = sync_repository(home, repo_key)
    return RepositoryStats(state.key, state.head, state.branch, state.url or str(state.path), state.fetched,
                           time.perf_counter() - started)
