"""An optional issue export: JSON Lines with the fields of GitHub's REST issue objects.

Each line is one issue: `number` (required), `title`, `body`, `labels` (names or `{"name": ...}`
objects), `state`, `created_at`, `closed_at` and `pull_request` (present for pull requests).
It gives bugs their title and text, tells bugs from features by label, and supplies the report
date that SZZ uses to drop impossible candidates. Bad lines are reported with their number and
skipped; the rest loads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ltm.errors import IssueExportError

BUG_LABELS = ("bug", "defect", "regression", "crash", "type: bug", "kind/bug", "type/bug", "bugfix")
FEATURE_LABELS = ("feature", "enhancement", "feature request", "type: feature", "kind/feature", "proposal", "question", "documentation", "docs")


@dataclass(frozen=True)
class Issue:
    """One issue or pull request of the export."""

    number: int
    title: str
    body: str
    labels: tuple[str, ...]
    state: str | None
    created_at: datetime | None
    closed_at: datetime | None
    is_pull_request: bool

    @property
    def ref(self) -> str:
        return f"#{self.number}"

    @property
    def kind(self) -> str:
        """`bug`, `feature` or `unknown`, from the labels (a bug label wins)."""
        names = {label.lower() for label in self.labels}
        if any(any(b == n or n.endswith(f": {b}") or n.endswith(f"/{b}") for b in BUG_LABELS) for n in names):
            return "bug"
        if names & set(FEATURE_LABELS):
            return "feature"
        return "unknown"


@dataclass
class IssueExport:
    """The issues that loaded, by ref (`#12`), and the lines that did not, with why."""

    issues: dict[str, Issue] = field(default_factory=dict)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)


def _time(value: object, line: int, name: str) -> datetime | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be an ISO 8601 string, got {value!r}")
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as e:
        raise ValueError(f"{name} {value!r} is not an ISO 8601 date") from e
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def _labels(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"labels must be a list, got {type(value).__name__}")
    out = []
    for item in value:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str):
            raise ValueError(f"a label must be a name or an object with a name, got {item!r}")
        out.append(name)
    return tuple(out)


def parse_issue(obj: object, line: int) -> Issue:
    """One decoded JSON line as an Issue; ValueError names what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    number = obj.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number <= 0:
        raise ValueError(f"number must be a positive integer, got {number!r}")
    title, body, state = obj.get("title") or "", obj.get("body") or "", obj.get("state")
    if not isinstance(title, str) or not isinstance(body, str):
        raise ValueError("title and body must be strings")
    return Issue(
        number=number, title=title, body=body, labels=_labels(obj.get("labels")),
        state=state if isinstance(state, str) else None,
        created_at=_time(obj.get("created_at"), line, "created_at"),
        closed_at=_time(obj.get("closed_at"), line, "closed_at"),
        is_pull_request=bool(obj.get("pull_request")),
    )


def load_issue_export(path: str | Path) -> IssueExport:
    """Read an issue export; a missing file is an error, a bad line is recorded and skipped."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise IssueExportError(f"issue export {p} does not exist: pass the path of a JSON Lines file, or leave it empty")
    out = IssueExport()
    with open(p, "rb") as f:
        for n, raw in enumerate(f, start=1):
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            try:
                issue = parse_issue(json.loads(text), n)
            except (ValueError, json.JSONDecodeError) as e:
                out.bad_lines.append((n, str(e)))
                continue
            out.issues[issue.ref] = issue
    return out
