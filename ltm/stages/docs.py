"""The docs stage: Markdown and reStructuredText at HEAD as Doc memories in the repository's partition."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ltm.extract.gitrepo import GitRepo
from ltm.lake import Lake
from ltm.memory.docs import repository_docs
from ltm.redact import summary_note


@dataclass(frozen=True)
class DocsStats:
    """What one run of the docs stage read and wrote."""

    repo: str
    rows: int
    doc_files: int
    seconds: float = 0.0
    redacted: dict[str, int] = field(default_factory=dict)

    def metadata(self) -> dict[str, object]:
        """The figures the `doc_memories` asset shows."""
        return {"repo": self.repo, "doc_files": self.doc_files, "rows": self.rows, "redacted": self.redacted,
                "seconds": round(self.seconds, 3)}

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        return f"rows={self.rows} doc_files={self.doc_files}{summary_note(self.redacted)}"


def stage_docs(repo_path: Path, repo_key: str, lake: Lake) -> DocsStats:
    """Documentation memories of a repository at HEAD into its lake partition."""
    started = time.perf_counter()
    repo = GitRepo(repo_path)
    rows, files = repository_docs(repo, repo_key, repo.head())
    with lake.write(repo_key) as w:
        w.write("Memory", rows)
    return DocsStats(repo_key, len(rows), files, time.perf_counter() - started, dict(w.redacted))
