"""The code stage: File, Module, Class and Function rows at HEAD and their code edges."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ltm.extract.code.entities import extract_code
from ltm.extract.gitrepo import GitRepo
from ltm.lake import Lake
from ltm.redact import summary_note


@dataclass(frozen=True)
class CodeStats:
    """What one run of the code stage parsed and wrote."""

    repo: str
    head: str
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    files_parsed: int = 0
    bytes_parsed: int = 0
    syntax_error_files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    languages: dict[str, int] = field(default_factory=dict)
    workers: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    """Calls resolved, unresolved, external, ambiguous and outside functions: counted, never guessed."""
    imports_unresolved: int = 0
    bases_unresolved: int = 0
    redacted: dict[str, int] = field(default_factory=dict)
    """Secrets replaced by their marker before the rows were written, by kind (`ltm.redact`)."""

    def metadata(self) -> dict[str, object]:
        """The figures the `code_entities` asset shows."""
        mb = self.bytes_parsed / 1e6
        return {
            "repo": self.repo, **{f"rows_{t}": n for t, n in self.rows.items()},
            "files_parsed": self.files_parsed, "syntax_error_files": self.syntax_error_files,
            "skipped": self.skipped, "languages": self.languages, "calls": self.calls, "workers": self.workers, "redacted": self.redacted,
            "seconds": round(self.seconds, 3),
            "mb_per_second": round(mb / self.seconds, 2) if self.seconds else 0.0,
        }

    def summary(self) -> str:
        """One line for `ltm ingest`."""
        rows = " ".join(f"rows_{t}={self.rows[t]}" for t in ("Function", "Class") if t in self.rows)
        return f"{rows} files_parsed={self.files_parsed}{summary_note(self.redacted)}".strip()


def stage_code(repo_path: Path, repo_key: str, lake: Lake) -> CodeStats:
    """File, Module, Class and Function rows at HEAD and their code edges (imports, calls, bases)."""
    started = time.perf_counter()
    repo = GitRepo(repo_path)
    head = repo.head()
    out = extract_code(repo, repo_key, head)
    with lake.write(repo_key) as w:
        for table, rows in out.tables.items():
            w.write(table, rows)
    res = out.resolution
    return CodeStats(
        repo=repo_key, head=head, rows=dict(w.rows), seconds=time.perf_counter() - started,
        files_parsed=out.files_parsed, bytes_parsed=out.bytes_parsed, syntax_error_files=out.syntax_error_files,
        skipped=dict(out.skipped), languages=dict(out.languages), workers=out.workers,
        calls={
            "resolved": res["calls_resolved"], "unresolved": res["calls_unresolved"],
            "external": res["calls_external"], "ambiguous": res["calls_ambiguous"],
            "outside_functions": res["calls_outside_functions"],
            "references": res["refs_resolved"],  # functions passed as values, resolved (extract/code/references.py)
        },
        imports_unresolved=res["imports_unresolved"], bases_unresolved=res["bases_unresolved"],
        redacted=dict(w.redacted),
    )
