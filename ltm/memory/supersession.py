"""Whether a newer memory updates or contradicts an older one: simple rules over the two texts.

No model decides: each memory is read once into `Facts` (its subject words, its values, whether it
negates, whether it speaks of a change), and a pair is judged from those and the cosine of the two
vectors. The rules, each named in the edge's `reason`:

- same subject: the two share a linked code entity, or their subject words (content words that
  are not values, markers or stop words) overlap by `SUBJECT_MIN` of the smaller set, and the
  words only one of them has are no more than `DISTINCT_MAX` (an unrelated look-alike, "the
  *staging* database password" against "the *production* one", differs in a subject word);
- the pair is SIMILAR_TO when it has the same subject and a cosine of at least `SIMILAR_MIN`
  (`SIMILAR_LINKED_MIN` when it shares linked code);
- it contradicts (`value changed`, `negation`, `update marker`) when the values differ (numbers,
  versions, quoted or `code` spans, capitalised names inside a sentence; acronyms such as HTTP are
  subject words), when one of them negates and the other
  does not, or when the newer one speaks of a change ("is now", "no longer", "instead of",
  "changed from A to B", "switched to", ...) and does not repeat the older one's values;
- a contradicting newer memory SUPERSEDES the older one. Chains keep their direct steps only
  (transitive reduction): C -> B -> A, not also C -> A.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUBJECT_MIN = 0.5
DISTINCT_MAX = 3
SIMILAR_MIN = 0.55
SIMILAR_LINKED_MIN = 0.4

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")
_NUMBER = re.compile(r"(?<![\w.])v?\d+(?:[.:]\d+)*(?:[a-z%]{1,3})?(?![\w])", re.I)
_QUOTED = re.compile(r"`([^`]{1,80})`|\"([^\"]{1,80})\"|'([^'\s][^']{0,78}[^'\s])'")
_NAME = re.compile(r"(?<=[a-z0-9,;:)] )[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[a-z0-9]+_[a-z0-9_]+\b")
_NEGATION = re.compile(r"\b(?:not|never|no longer|n't|cannot|disabled?|without|none|nobody|nothing|avoid|stop(?:ped)? using)\b", re.I)
_MARKER = re.compile(
    r"\b(?:(?:is|are|now) now|now (?:uses?|is|are|we|the|it|has|have|defaults?|runs?|lives?|points?|requires?)|"
    r"no longer|any ?more|instead(?: of)?|changed|switched|replaced|moved|migrated|renamed|upgraded|"
    r"downgraded|bumped|raised|lowered|increased|decreased|reduced|deprecated|from \S+ to|"
    r"was wrong|correction|actually|turns out|not anymore|updated?|as of)\b", re.I)
STOP = frozenset(
    """
    a an the and or but if of to in on at by for with from into onto as is are was were be been being it its
    this that these those there here we our us you your they their them i my me he she his her has have had do
    does did done can could should would will shall may might must so than then too very also just only about
    over under after before when while which who whom what where why how all any each every some such no nor
    not never now longer anymore any more instead use used uses using set sets default defaults value values
    changed change changes switched switch replaced moved migrated renamed upgraded downgraded bumped raised
    lowered increased decreased reduced deprecated updated update actually turns out correction wrong note
    remember keep always team project repo code again still yet already per via
    second seconds minute minutes hour hours day days week weeks month months year years ms mb gb kb
    percent times version versions
    """.split()
)


@dataclass(frozen=True)
class Facts:
    """What the rules read of one memory."""

    subject: frozenset[str]
    values: frozenset[str]
    negated: bool
    marker: bool


def _stem(word: str) -> str:
    w = word.lower().strip("'-_")
    for suffix in ("ies", "es", "s"):
        if len(w) > 4 and w.endswith(suffix) and not w.endswith("ss"):
            return w[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return w


def read_facts(text: str) -> Facts:
    """The subject words, values, negation and change marker of one memory's text."""
    text = text or ""
    values: set[str] = set()
    for m in _QUOTED.finditer(text):
        values.add(next(g for g in m.groups() if g).lower())
    for m in _NUMBER.finditer(text):
        values.add(m.group(0).lower().lstrip("v"))
    names = {m.group(0).lower() for m in _NAME.finditer(text)}
    values |= names
    value_words = {_stem(w) for v in values for w in _WORD.findall(v)}
    subject = {
        _stem(w) for w in _WORD.findall(text)
        if len(w) >= 3 and w.lower() not in STOP and not w.lower().endswith("n't")
    } - value_words
    return Facts(frozenset(subject), frozenset(values), bool(_NEGATION.search(text)), bool(_MARKER.search(text)))


@dataclass(frozen=True)
class Verdict:
    """The rules' verdict on (newer, older)."""

    similar: bool
    contradicts: bool
    reason: str


def same_subject(a: Facts, b: Facts, shared_link: bool) -> bool:
    """Whether two memories speak of one subject (see the module doc)."""
    if shared_link:
        return True
    if not a.subject or not b.subject:
        return False
    common = len(a.subject & b.subject)
    small = min(len(a.subject), len(b.subject))
    distinct = min(len(a.subject - b.subject), len(b.subject - a.subject))
    return common / small >= SUBJECT_MIN and distinct <= DISTINCT_MAX


def judge(newer: Facts, older: Facts, cosine: float, shared_link: bool) -> Verdict:
    """SIMILAR_TO and contradiction of one candidate pair, with the rule that decided."""
    floor = SIMILAR_LINKED_MIN if shared_link else SIMILAR_MIN
    if cosine < floor or not same_subject(newer, older, shared_link):
        return Verdict(False, False, "")
    basis = "shared code" if shared_link else "same subject"
    if newer.values and older.values and newer.values != older.values:
        changed = f"{', '.join(sorted(older.values - newer.values)) or '-'} -> {', '.join(sorted(newer.values - older.values)) or '-'}"
        if older.values - newer.values or newer.marker:
            return Verdict(True, True, f"value changed: {changed}")
    if newer.negated != older.negated:
        return Verdict(True, True, "negation: " + ("the newer negates" if newer.negated else "the older negated"))
    repeats = bool(newer.values) and newer.values == older.values
    if newer.marker and not older.marker and not repeats:
        return Verdict(True, True, "update marker")
    return Verdict(True, False, basis)


def transitive_reduction(pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """(newer, older) pairs without those another pair chain implies (C->B->A drops C->A)."""
    older_of: dict[str, set[str]] = {}
    for n, o in pairs:
        older_of.setdefault(n, set()).add(o)
    return {(n, o) for n, o in pairs if not any(o in older_of.get(m, ()) for m in older_of[n] if m != o)}


def value_change(older: Facts, newer: Facts) -> tuple[str, str]:
    """(from_value, to_value) of a supersession: the values only the older, only the newer has."""
    was = sorted(older.values - newer.values) or sorted(older.values)
    now = sorted(newer.values - older.values) or sorted(newer.values)
    return ", ".join(was), ", ".join(now)
