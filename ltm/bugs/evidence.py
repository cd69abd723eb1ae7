"""Fix evidence in a commit message: which bug a commit fixes, how we know, and how sure we are.

Evidence kinds, strongest first (the confidence is kept on the `FIXES` edge):

| kind | example | confidence | bug ref |
|---|---|---|---|
| `fixes_trailer` | `Fixes: 1a2b3c4d ("parser: ...")` | 0.95 | `intro:<sha>` (the named commit introduced it) |
| `closing_ref` | `fixes #12`, `closes GH-7`, `resolves owner/repo#3`, `fixes https://github.com/o/r/issues/3` | 0.9 | `#12`, `#7`, `owner/repo#3` |
| `jira_key` | `PROJ-123: fix NPE in loader` | 0.8 | `PROJ-123` |
| `revert` | `This reverts commit <sha>.` | 0.8 | `revert:<sha>` (the reverted commit introduced it) |
| `keyword_ref` | `Fix crash on empty header (#12)` | 0.6 | `#12` |
| `keyword` | `fix crash on empty header` | 0.4 | `fix:<sha of the fixing commit>` |

Words are matched whole (`prefix`, `fixture`, `debug` are not fixes); a keyword-only message about
typos or documentation is not a bug fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

SHORT_SHA = 12


class EvidenceKind(str, Enum):
    """How a commit is known to fix a bug."""

    FIXES_TRAILER = "fixes_trailer"
    CLOSING_REF = "closing_ref"
    JIRA_KEY = "jira_key"
    REVERT = "revert"
    KEYWORD_REF = "keyword_ref"
    KEYWORD = "keyword"


CONFIDENCE: dict[EvidenceKind, float] = {
    EvidenceKind.FIXES_TRAILER: 0.95,
    EvidenceKind.CLOSING_REF: 0.9,
    EvidenceKind.JIRA_KEY: 0.8,
    EvidenceKind.REVERT: 0.8,
    EvidenceKind.KEYWORD_REF: 0.6,
    EvidenceKind.KEYWORD: 0.4,
}


@dataclass(frozen=True)
class FixEvidence:
    """One reason to believe a commit fixes a bug.

    `ref` names the bug (an issue reference, else derived from a commit); `evidence` is the text
    that matched; `introducing` is a commit (prefix) named as the bug's origin by a `Fixes:`
    trailer or a revert, to be resolved against the repository's commits.
    """

    ref: str
    kind: EvidenceKind
    evidence: str
    confidence: float
    introducing: str | None = None


_CLOSE = r"(?:fix(?:e[sd]|ing)?|close[sd]?|closing|resolve[sd]?|resolving)"
# One issue reference: a URL, owner/repo#N, GH-N or #N.
_REF = (
    r"(?:https?://[\w.-]+/(?P<url_repo>[\w.-]+/[\w.-]+)/(?:-/)?issues/(?P<url_num>\d+)"
    r"|(?P<full_repo>[\w.-]+/[\w.-]+)#(?P<full_num>\d+)"
    r"|\bGH-(?P<gh_num>\d+)"
    r"|(?<![\w/&])#(?P<num>\d+))"
)
_REF_RE = re.compile(_REF, re.I)
_REF_ANON = re.sub(r"\?P<\w+>", "?:", _REF)
# `fixes #1, #2 and #3`: a closing word, an optional colon, then one or more refs.
_CLOSING_RE = re.compile(rf"\b{_CLOSE}\b:?\s+(?P<refs>{_REF_ANON}(?:(?:\s*,\s*|\s+and\s+|\s+){_REF_ANON})*)", re.I)
_JIRA_RE = re.compile(r"(?<![\w-])(?P<key>[A-Z][A-Z0-9]{1,9}-[1-9]\d{0,6})(?![\w-])")
_TRAILER_RE = re.compile(r"^\s*Fixes:\s+(?P<sha>[0-9a-f]{7,40})\b.*$", re.I | re.M)
_REVERT_RE = re.compile(r"\bThis reverts commit (?P<sha>[0-9a-f]{7,40})\b", re.I)
_KEYWORD_RE = re.compile(
    r"\b(?:fix(?:e[sd]|ing)?|bug(?:s|fix(?:es)?)?|hotfix(?:es)?|defects?|fault|regression|crash(?:es|ed)?|"
    r"incorrect|wrong|broken|npe|segfault|leak)\b",
    re.I,
)
_MERGE_PR_RE = re.compile(r"^Merge (?:pull request|branch) \S+(?: from \S+)?", re.I | re.M)
_NOT_A_BUG_RE = re.compile(r"\b(?:typos?|spelling|wording|grammar|docs?|documentation|docstrings?|readme|comments?)\b", re.I)
# GitHub's own closing words also accept "fixes org/repo#1"; a Jira-looking token such as
# UTF-8 or SHA-256 is not a ticket.
_NOT_JIRA = frozenset({"UTF", "SHA", "ISO", "RFC", "CVE", "HTTP", "TLS", "SSL", "PEP", "GH", "X", "ECMA", "IEEE", "AES"})


def _norm_ref(m: re.Match[str]) -> str:
    g = m.groupdict()
    if g.get("url_num"):
        return f"{g['url_repo']}#{g['url_num']}"
    if g.get("full_num"):
        return f"{g['full_repo']}#{g['full_num']}"
    return f"#{g.get('gh_num') or g.get('num')}"


def _refs(text: str) -> list[str]:
    return [_norm_ref(m) for m in _REF_RE.finditer(text)]


def is_bug_keyword(message: str) -> bool:
    """True when the summary line uses bug-fix wording and is not about typos or docs."""
    summary = message.strip().splitlines()[0] if message.strip() else ""
    return bool(_KEYWORD_RE.search(summary)) and not _NOT_A_BUG_RE.search(summary)


def parse_fix_evidence(message: str, sha: str) -> list[FixEvidence]:
    """Every piece of fix evidence in a commit message, strongest first, one per bug ref.

    `sha` is the commit's own id: a keyword-only fix is named after it.
    """
    found: dict[str, FixEvidence] = {}
    message = _MERGE_PR_RE.sub("", message)  # "Merge pull request #9 from a/fix-x" names a PR and a branch

    def add(ev: FixEvidence) -> None:
        if ev.ref not in found or found[ev.ref].confidence < ev.confidence:
            found[ev.ref] = ev

    for m in _TRAILER_RE.finditer(message):
        s = m.group("sha").lower()
        add(FixEvidence(f"intro:{s[:SHORT_SHA]}", EvidenceKind.FIXES_TRAILER, m.group(0).strip(),
                        CONFIDENCE[EvidenceKind.FIXES_TRAILER], s))
    for m in _REVERT_RE.finditer(message):
        s = m.group("sha").lower()
        add(FixEvidence(f"revert:{s[:SHORT_SHA]}", EvidenceKind.REVERT, m.group(0).strip(),
                        CONFIDENCE[EvidenceKind.REVERT], s))
    closing_spans = []
    for m in _CLOSING_RE.finditer(message):
        closing_spans.append(m.span())
        for ref in _refs(m.group("refs")):
            add(FixEvidence(ref, EvidenceKind.CLOSING_REF, m.group(0).strip(), CONFIDENCE[EvidenceKind.CLOSING_REF]))
    if is_bug_keyword(message):
        for m in _JIRA_RE.finditer(message):
            key = m.group("key")
            if key.split("-")[0] not in _NOT_JIRA:
                add(FixEvidence(key, EvidenceKind.JIRA_KEY, key, CONFIDENCE[EvidenceKind.JIRA_KEY]))
        outside = " ".join(message[a:b] for a, b in _gaps(closing_spans, len(message)))
        for m in _REF_RE.finditer(outside):
            add(FixEvidence(_norm_ref(m), EvidenceKind.KEYWORD_REF, m.group(0), CONFIDENCE[EvidenceKind.KEYWORD_REF]))
    if not found and is_bug_keyword(message):
        summary = message.strip().splitlines()[0]
        add(FixEvidence(f"fix:{sha[:SHORT_SHA]}", EvidenceKind.KEYWORD, summary[:200], CONFIDENCE[EvidenceKind.KEYWORD]))
    return sorted(found.values(), key=lambda e: -e.confidence)


def _gaps(spans: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The parts of [0, n) not covered by `spans` (sorted, non-overlapping)."""
    out, pos = [], 0
    for a, b in spans:
        out.append((pos, a))
        pos = b
    out.append((pos, n))
    return out
