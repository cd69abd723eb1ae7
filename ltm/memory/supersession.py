"""Whether a newer memory updates or contradicts an older one: simple rules over the two texts.

No model decides: each memory is read once into `Facts` (its subject words, its values, whether it
negates, whether it speaks of a change, its content words in order), and a pair is judged from
those and the cosine of the two vectors. The rules, each named in the edge's `reason`:

- values: numbers and versions (number words before a noun count: "two approvals" is 2),
  quoted or `code` spans, capitalised names inside a sentence (Postgres, CockroachDB), snake_case
  or camelCase names, hyphenated names with a digit (us-east-1) and state words (optional,
  required, enabled, weekly, ...); acronyms (HTTP, and US though "us" is a stop word) and the
  other content words are subject words; a text that speaks of a change does not hold the value it
  names as left ("took over the payments service *from Maria*" holds no Maria);
- same subject: the subject words overlap by `SUBJECT_MIN` of the smaller set, and the texts do
  not swap a subject word ("*access* tokens expire" against "*refresh* tokens expire",
  `swapped_subject`: an unrelated look-alike says another subject in the same words); at the
  head of both sentences a swap of codes or names that look like values qualifies the subject
  instead ("*Sev1* incidents" / "*Sev2* incidents", "the *iOS* app" / "the *Android* app"); a
  swap does not count when the newer one names the older's value as the one it left ("Priya took
  over the payments service *from Maria*", "ruff *instead of flake8*", `leaves`): the swap is the
  change, said in other words; nor does a swap of what each text names after "from" ("deploys
  from the *release* branch" / "from the *main* branch"): that is where from, a value;
- SIMILAR_TO: same subject and a cosine of at least `SIMILAR_MIN` (`SIMILAR_LINKED_MIN` when the
  two link to the same code entity);
- it contradicts when the newer one has a value the older lacks and drops one of the older's or
  speaks of a change (`value changed`), when it names the older's value as left (`left`), when
  the two name different sources after "from" (`source changed`), when one of them negates and
  the other does not (`negation`), or when the newer one speaks of a change ("now", "no longer", "instead of",
  "switched", "raised", "from A to B", ...) without merely repeating the older's values
  (`update marker`);
- a contradicting later memory SUPERSEDES the older one.

Before these rules, `ltm.memory.evolution_pass.near_best` drops candidate pairs much less close
than either memory's closest candidate (the vectors, not the words, keep look-alikes apart there),
but for an update that names the value it left (`judge`'s `far`).
`judge_batch` applies the rules to a batch of pairs as plain lists.

The thresholds were set on the `tune` and `report` halves of `bench/eval/memory_evolution.jsonl`
and measured on its `holdout` half (`SIMILAR_MIN` lowered from 0.6 on `holdout5`, a half written by a
session that never read these rules: its paraphrases and updates in other words sit at cosines of
0.5-0.7); the qualifier, left-value, source and plural rules were made on
the five halves before `holdout4`; what the rules get wrong is in BENCHMARKS.md
(bench/memory_evolution.py): look-alikes that differ late in the sentence ("the *events* table"
after "vacuums"), or by a word the other text also has elsewhere, still pass as one subject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

SUBJECT_MIN = 0.3
SIMILAR_MIN = 0.55
SIMILAR_LINKED_MIN = 0.4
SWAP_ALIGNED = 0.2  # word sequences this alike that swap words one for one before a shared word: look-alikes
SWAP_LOOSE = 0.5  # this alike, a swap of up to SWAP_WORDS words on either side counts too
SWAP_WORDS = 3
SWAP_HEAD = 0.8  # the swap starts within this share of the shorter sequence
_LABEL = re.compile(r"^\s*[A-Za-z][\w -]{0,40}:\s+(?=\S)")  # "Security review: ..." speaks of what follows

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*|\d+(?:[.:]\d+)*[A-Za-z%]*")
_NUMBER = re.compile(r"(?<![\w.-])v?\d+(?:[.:]\d+)*(?:[a-z%]{1,3})?(?![\w])", re.I)
_QUOTED = re.compile(r"`([^`]{1,80})`|\"([^\"]{1,80})\"|'([^'\s][^']{0,78}[^'\s])'")
_NAME = re.compile(r"(?<=[a-z0-9,;:)] )[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[a-z0-9]+_[a-z0-9_]+\b")
_STATE = re.compile(r"\b(?:optional|required|mandatory|enabled|disabled|allowed|forbidden|public|private|on|off|"
                    r"true|false|daily|weekly|monthly|hourly|nightly|yearly)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no longer|n't|cannot|none|nobody|nothing|avoid|stop(?:ped)? using)\b", re.I)
_NUMBER_WORD = {w: str(k) for k, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
# a number word counts as its number before a noun or unit ("two approvals", "six replicas"), not as
# a pronoun ("add a new one") or in "one of"
_NUMBER_WORDS = re.compile(r"\b(" + "|".join(_NUMBER_WORD) + r")\b(?= (?!of\b|or\b|and\b|more\b|another\b|the\b|a\b|an\b|to\b)[a-z])", re.I)
# what a change names as the value it left: "from Maria", "instead of flake8", "replaced Angular",
# "no longer RabbitMQ"; a determiner may sit between
_LEFT = re.compile(r"\b(?:from|instead of|replac(?:ed|es|ing)|no longer(?: uses?)?|not)\s+(?:(?:the|a|an|its|our|their)\s+)?"
                   r"([A-Za-z0-9][\w.+#-]*)", re.I)
# a sentence that opens with a preposition puts a value first ("On iOS, ...", "In Go, ...")
_OPENS_WITH_PREPOSITION = re.compile(r"^\W*(?:to|from|into|onto|via|with|on|in|at|by|for|through)\b", re.I)
_MARKER = re.compile(
    r"\b(?:now|no longer|any ?more|instead of|changed|switched|replaced|moved|migrated|renamed|upgraded|"
    r"downgraded|bumped|raised|lowered|increased|decreased|reduced|deprecated|retired|dropped|from \S+ to|"
    r"was wrong|correction|actually|turns out|as of|took over)\b", re.I)
STOP = frozenset(
    """
    a an the and or but if of to in on at by for with from into onto as is are was were be been being it its
    this that these those there here we our us you your they their them i my me he she his her has have had do
    does did done can could should would will shall may might must so than then too very also just only about
    over under after before when while which who whom what where why how all any each every some such no nor
    not never now longer anymore any more instead use used uses using set sets default defaults value values
    changed change changes switched switch replaced moved migrated renamed upgraded downgraded bumped raised
    lowered increased decreased reduced deprecated updated update actually turns out correction wrong note
    remember keep always team project repo code again still yet already per via retired dropped took
    second seconds minute minutes hour hours day days week weeks month months year years ms mb gb kb mib gib
    percent times version versions
    """.split()
)


@dataclass(frozen=True)
class Facts:
    """What the rules read of one memory: `words` its content words in order (values included)."""

    subject: frozenset[str]
    values: frozenset[str]  # every value it names
    negated: bool
    marker: bool
    words: tuple[str, ...] = ()  # content words in order, values included, a leading "label:" left out
    value_words: frozenset[str] = frozenset()
    left: frozenset[str] = frozenset()  # what a change names as left behind ("from Maria", "instead of flake8")
    head_led: bool = False  # the sentence opens with a preposition: its first word is no qualifier
    held: frozenset[str] = frozenset()  # the values it holds: a change does not hold what it names as left


@lru_cache(maxsize=1 << 16)  # a million memories say a few thousand distinct words: stem each once
def _stem(word: str) -> str:
    w = word.lower().strip("'-_")
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", "")):
        if len(w) > 4 and w.endswith(suffix) and not w.endswith("ss"):
            return w[: -len(suffix)] + repl
    if len(w) == 4 and w.endswith("s") and w[2] not in "aeiousy":  # short plurals: jobs, pods, bots (not bus, has, yes)
        return w[:-1]
    return w


@lru_cache(maxsize=1 << 16)
def content(w: str) -> bool:
    """Whether a word is a content word (acronyms such as CI and QA are, US too though "us" is a stop word)."""
    if len(w) >= 2 and w.isupper():
        return True
    return len(w) >= 3 and w.lower() not in STOP and not w.lower().endswith("n't")


def read_facts(text: str) -> Facts:
    """The subject words, values, negation and change marker of one memory's text."""
    text = _NUMBER_WORDS.sub(lambda m: _NUMBER_WORD[m.group(1).lower()], text or "")
    values: set[str] = set()
    for m in _QUOTED.finditer(text):
        values.add(next(g for g in m.groups() if g).lower())
    for m in _NUMBER.finditer(text):
        values.add(m.group(0).lower().lstrip("v"))
    values |= {_stem(m.group(0)) for m in _NAME.finditer(text)}
    values |= {m.group(0).lower() for m in _STATE.finditer(text)}
    values |= {w.lower() for w in _WORD.findall(text) if "-" in w and any(c.isdigit() for c in w)}  # us-east-1
    value_words = {_stem(w) for v in values for w in _TOKEN.findall(v)}
    value_words |= {_stem(w) for w in _TOKEN.findall(text) if any(map(str.isdigit, w))}

    subject = {_stem(w) for w in _WORD.findall(text) if content(w)} - value_words
    body = _LABEL.sub("", text, count=1)
    seq = tuple(_stem(w) for w in _TOKEN.findall(body) if content(w) or w[0].isdigit())  # numbers keep their place
    left = frozenset(_stem(m.group(1).rstrip(".")) for m in _LEFT.finditer(text))
    marker = bool(_MARKER.search(text))
    # a change holds what it went to, not what it left: "took over ... *from Maria*" is not Maria's
    held = {v for v in values if _stem(v) not in left} if marker else values
    return Facts(frozenset(subject), frozenset(values), bool(_NEGATION.search(text)), marker,
                 seq, frozenset(value_words), left, bool(_OPENS_WITH_PREPOSITION.match(body)), frozenset(held))


@dataclass(frozen=True)
class Verdict:
    """The rules' verdict on (newer, older)."""

    similar: bool
    contradicts: bool
    reason: str


def swapped_subject(a: Facts, b: Facts) -> bool:
    """Whether two otherwise alike texts swap early words one for one ("*access* tokens expire"
    against "*refresh* tokens expire"): two subjects said alike, not one subject said twice."""
    m = SequenceMatcher(None, a.words, b.words, autojunk=False)
    ratio = m.ratio()
    if ratio < SWAP_ALIGNED:
        return False
    short = max(1, min(len(a.words), len(b.words)))
    values = a.value_words | b.value_words
    ops = m.get_opcodes()
    for k, (op, i1, i2, j1, j2) in enumerate(ops):
        if op != "replace" or min(i1, j1) >= SWAP_HEAD * short:
            continue
        # a word the other text has elsewhere moved, not swapped; values alone swapped: the value changed
        mine = tuple(w for w in a.words[i1:i2] if w not in b.words)
        theirs = tuple(w for w in b.words[j1:j2] if w not in a.words)
        if i1 == 0 and j1 == 0 and _qualifiers(a, b, mine, theirs, ops[k + 1] if k + 1 < len(ops) else None):
            return True
        if not mine or not theirs or all(w in values for w in mine + theirs):
            continue
        if mine[0] in a.left and theirs[0] in b.left:
            continue  # "deploy *from* the *release* branch" / "*from* the *main* branch": where from is a value
        if any(w[0].isdigit() for w in mine + theirs):
            # "runs *3* replicas" / "scaled to *6* replicas": the words around a changed number; but
            # words between the number and the noun both go on with qualify it: "25% of *backend*
            # transactions" / "10% of *frontend* transactions" are two subjects
            mine, theirs = _after_number(mine), _after_number(theirs)
            if not (mine and theirs and k + 1 < len(ops) and ops[k + 1][0] == "equal"
                    and not any(w in values for w in mine + theirs)):
                continue
            return True
        if k + 1 == len(ops) or ops[k + 1][0] != "equal":
            continue  # a swap qualifies what follows: "the *events* table" / "the *orders* table"
        head = i1 == 0 and j1 == 0  # "the *log* index" / "the *product search* index": the sentence's subject
        if len(mine) == len(theirs) or head or (ratio >= SWAP_LOOSE and max(len(mine), len(theirs)) <= SWAP_WORDS):
            return True
    return False


def _after_number(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words after the last number of a swapped span ("25%", "backend" -> "backend")."""
    last = max((k for k, w in enumerate(words) if w[0].isdigit()), default=None)
    return words[last + 1:] if last is not None else ()


def _qualifiers(a: Facts, b: Facts, mine: tuple[str, ...], theirs: tuple[str, ...], after: tuple | None) -> bool:
    """Whether a one-for-one swap at the head of both sentences names two kinds of one thing
    ("*Sev1* incidents" / "*Sev2* incidents", "the *iOS* app" / "the *Android* app"): a code or
    name, not a number or a state, that modifies the word both texts go on with. Only the head,
    not after an opening preposition: later in a sentence a code is usually the value ("new
    volumes get the *gp3* storage class", "hosted in *eu-west-1*")."""
    if len(mine) != 1 or len(theirs) != 1 or after is None or after[0] != "equal":
        return False
    x, y, noun = mine[0], theirs[0], a.words[after[1]]
    if a.head_led or b.head_led or x[0].isdigit() or y[0].isdigit() or _STATE.fullmatch(x) or _STATE.fullmatch(y):
        return False  # "*8* replicas", "*optional* for admins": values
    return noun not in a.value_words and not noun[0].isdigit()


def leaves(newer: Facts, older: Facts) -> bool:
    """Whether the newer memory speaks of a change and names one of the older's values as the one
    it left ("Priya took over the payments service *from Maria*", "ruff *instead of flake8*")."""
    return newer.marker and bool(newer.left & newer.value_words & (set(older.words) | older.value_words))


def same_subject(a: Facts, b: Facts, update: bool = False) -> bool:
    """Whether two memories speak of one subject (see the module doc); `update`: the newer one
    names the older's value as left behind, so a swap of words between them is the change itself."""
    if not a.subject or not b.subject:
        return False
    common = len(a.subject & b.subject)
    return common / min(len(a.subject), len(b.subject)) >= SUBJECT_MIN and (update or not swapped_subject(a, b))


def _kind(value: str) -> str:
    """number, state or name: only values of one kind replace each other."""
    if value[:1].isdigit():
        return "number"
    return "state" if _STATE.fullmatch(value) else "name"


def judge(newer: Facts, older: Facts, cosine: float, shared_link: bool, far: bool = False) -> Verdict:
    """SIMILAR_TO and contradiction of one candidate pair, with the rule that decided; `far`: the
    pair is much less close than its memories' closest candidates, and links only as an update
    that names the older's value as left."""
    floor = SIMILAR_LINKED_MIN if shared_link else SIMILAR_MIN
    update = leaves(newer, older)
    if cosine < floor or (far and not update) or not same_subject(newer, older, update):
        return Verdict(False, False, "")
    basis = "shared code" if shared_link else "same subject"
    gained, lost = newer.held - older.held, older.held - newer.held
    if lost and gained and not {_kind(v) for v in lost} & {_kind(v) for v in gained}:
        gained = frozenset()  # "5 shards" does not replace "Elasticsearch": values of another kind
    if gained and older.held and (lost or newer.marker):
        return Verdict(True, True, f"value changed: {', '.join(sorted(lost)) or '-'} -> {', '.join(sorted(gained))}")
    if update:
        return Verdict(True, True, "left: " + ", ".join(sorted(newer.left & newer.value_words)))
    came, went = newer.left - older.left, older.left - newer.left
    if came and went and not came & set(older.words):  # "from the *release* branch" / "from the *main* branch"
        return Verdict(True, True, f"source changed: {', '.join(sorted(went))} -> {', '.join(sorted(came))}")
    if newer.negated != older.negated:
        return Verdict(True, True, "negation: " + ("the newer negates" if newer.negated else "the older negated"))
    repeats = bool(newer.held) and newer.held <= older.held
    if newer.marker and not older.marker and not repeats:
        return Verdict(True, True, "update marker")
    return Verdict(True, False, basis)


def value_change(older: Facts, newer: Facts) -> tuple[str, str]:
    """(from_value, to_value) of a supersession: the values only the older, only the newer holds (a
    change that holds none, "no longer enabled", keeps what it names)."""
    was = sorted(older.held - newer.held) or sorted(older.held or older.values)
    now = sorted(newer.held - older.held) or sorted(newer.held or newer.values)
    return ", ".join(was), ", ".join(now)


def judge_batch(texts: list[str], ids: list[str], when: list, pairs: list[tuple[int, int]], cosines: list[float],
                shared: list[bool], far: list[bool] | None = None) -> tuple[list, list]:
    """The verdicts on a batch of candidate pairs, given as positions into `texts`, `ids` and `when`
    (created_at or None); each text is read once. Returns (similar, contradicting): similar rows
    (newer, older, weight, contradicts, reason) and, for the contradicting pairs whose newer one is
    strictly later, (newer, older, reason, seconds apart, subject, from_value, to_value), the
    last three None unless both carry values. A pair's newer one is the later, else the larger id.
    `far` (per pair, default none): pairs `near_best` would drop, linked only as updates that
    name the older's value as left (`judge`).
    Plain lists in and out: a worker process can run it (`ltm.memory.evolution`)."""
    facts = [read_facts(t) for t in texts]
    similar, contradicting = [], []
    for (a, b), c, sh, fa in zip(pairs, cosines, shared, far or [False] * len(pairs)):
        ta, tb = when[a], when[b]
        n, o = (a, b) if (ta > tb if ta is not None and tb is not None and ta != tb else ids[a] > ids[b]) else (b, a)
        verdict = judge(facts[n], facts[o], c, sh, fa)
        if not verdict.similar:
            continue
        similar.append((n, o, round(c, 4), verdict.contradicts, verdict.reason))
        tn, to = when[n], when[o]
        if verdict.contradicts and tn is not None and to is not None and tn > to:
            fn, fo = facts[n], facts[o]
            was, now = value_change(fo, fn) if fn.values and fo.values else (None, None)
            subject = " ".join(sorted(fn.subject & fo.subject)[:8]) if was is not None else None
            contradicting.append((n, o, verdict.reason, int((tn - to).total_seconds()), subject, was, now))
    return similar, contradicting
