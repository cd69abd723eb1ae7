"""Restartable backfill windows for very long histories.

A 100,000-commit repository is not mined in one go: its first-parent chain is cut into windows
(every N commits, or every D days of committer time), oldest first, and each window is one
`commits` run that mines `cursor..window end` and moves the history cursor there. A window is
all-or-nothing (the lake's staged writes), so a failed window leaves the cursor at the end of the
previous one, and planning again from the cursor resumes where it stopped. Merged side branches
are mined with the window whose first-parent commit merges them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ltm.errors import LtmError
from ltm.extract.gitrepo import GitRepo


@dataclass(frozen=True)
class Window:
    """One backfill window: mine up to `end` (a first-parent commit of the branch)."""

    index: int
    end: str
    commits: int
    first_time: int
    last_time: int


def plan_windows(
    repo_path: Path, branch: str | None, after: str | None, every_commits: int | None = None,
    every_days: int | None = None,
) -> list[Window]:
    """Windows covering `after..branch` along the first-parent chain, oldest first.

    Exactly one of `every_commits` / `every_days` is given. `after` is the commit mined last
    (None: from the root); if it is not an ancestor of the branch the history was rewritten and
    the plan starts from the root.
    """
    if (every_commits is None) == (every_days is None):
        raise LtmError("give the window size either in commits (--window-commits) or in days (--window-days)")
    if (every_commits is not None and every_commits < 1) or (every_days is not None and every_days < 1):
        raise LtmError("a backfill window must hold at least 1 commit or 1 day")
    repo = GitRepo(repo_path)
    tip = repo.head(branch or "HEAD")
    if after == tip:
        return []
    if after and not repo.is_ancestor(after, tip):
        after = None
    rng = f"{after}..{tip}" if after else tip
    chain = [line.split() for line in repo.run("log", "--first-parent", "--reverse", "--format=%H %ct", rng).splitlines() if line]
    windows: list[Window] = []
    start = 0
    for i, (sha, ct) in enumerate(chain):
        last = i == len(chain) - 1
        if every_commits is not None:
            cut = (i - start + 1) == every_commits
        else:
            nxt = int(chain[i + 1][1]) if not last else None
            cut = nxt is not None and nxt // (every_days * 86400) != int(ct) // (every_days * 86400)
        if cut or last:
            windows.append(Window(len(windows), sha, i - start + 1, int(chain[start][1]), int(ct)))
            start = i + 1
    return windows

