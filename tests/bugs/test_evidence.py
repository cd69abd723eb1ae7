"""Fix evidence from commit messages: what counts as a fix, which bug, how sure."""

import pytest

from ltm.bugs.evidence import EvidenceKind, parse_fix_evidence

SHA = "0123456789abcdef0123456789abcdef01234567"


def _refs(message: str) -> dict[str, EvidenceKind]:
    return {e.ref: e.kind for e in parse_fix_evidence(message, SHA)}


@pytest.mark.parametrize(
    "message, expected",
    [
        ("Handle empty tokens, fixes #12", {"#12": EvidenceKind.CLOSING_REF}),
        ("closes GH-7", {"#7": EvidenceKind.CLOSING_REF}),
        ("Resolves psf/requests#3", {"psf/requests#3": EvidenceKind.CLOSING_REF}),
        ("Fixes https://github.com/psf/requests/issues/4021", {"psf/requests#4021": EvidenceKind.CLOSING_REF}),
        ("Fixed #1, #2 and #3", {"#1": EvidenceKind.CLOSING_REF, "#2": EvidenceKind.CLOSING_REF,
                                 "#3": EvidenceKind.CLOSING_REF}),
        ("AUTH-42: fix crash when the header is empty", {"AUTH-42": EvidenceKind.JIRA_KEY}),
        ("Fix crash on empty header (#88)", {"#88": EvidenceKind.KEYWORD_REF}),
        ("Fix crash on empty header", {"fix:0123456789ab": EvidenceKind.KEYWORD}),
    ],
)
def test_closing_keywords_refs_and_keywords_name_the_bug(message, expected):
    assert _refs(message) == expected


def test_fixes_trailer_names_the_introducing_commit_with_the_highest_confidence():
    msg = "parser: stop reading past the buffer\n\nFixes: 1a2b3c4d5e6f (\"parser: read ahead\")\nCloses #9\n"
    ev = parse_fix_evidence(msg, SHA)
    assert [(e.ref, e.kind, e.introducing) for e in ev] == [
        ("intro:1a2b3c4d5e6f", EvidenceKind.FIXES_TRAILER, "1a2b3c4d5e6f"),
        ("#9", EvidenceKind.CLOSING_REF, None),
    ]
    assert ev[0].confidence > ev[1].confidence


def test_revert_names_the_reverted_commit():
    msg = 'Revert "Add caching"\n\nThis reverts commit 89abcdef0123456789abcdef0123456789abcdef.\n'
    [ev] = parse_fix_evidence(msg, SHA)
    assert ev.kind == EvidenceKind.REVERT
    assert ev.ref == "revert:89abcdef0123"
    assert ev.introducing == "89abcdef0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    "message",
    [
        "Use a common prefix for the cache keys",
        "Add a fixture for the session tests",
        "debug logging for the adapter",
        "fix typo in docs",
        "Fix spelling in the README",
        "Bump to UTF-8 everywhere",
        "Merge pull request #77 from someone/fix-adapter",
        "see issue #12 for the plan",
    ],
)
def test_messages_that_are_not_fixes(message):
    assert parse_fix_evidence(message, SHA) == []


def test_a_confidence_ladder_orders_the_kinds():
    def conf(msg):
        return parse_fix_evidence(msg, SHA)[0].confidence
    assert conf("fixes #1") > conf("PROJ-1 fix it") > conf("fix crash (#1)") > conf("fix crash")
