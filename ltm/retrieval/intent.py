"""What a question asks for: the relation it names, the entity it is about, and the hints around it.

`parse("could you tell me what calls Context.invoke inside the package?")` ->
Intent(kind="callers", subject="Context.invoke", candidates=(...), scope="package"). A relation is
recognised by its cue words anywhere in the sentence (extra words, politeness and qualifiers do not
hide it); the subject is the code-like name nearest the cue, and `candidates` lists the other names
the question holds, best first, so the graph side can take the first one that exists (the parser
never sees the graph). Plurals and `module.path` forms are resolved there too. The subject is only
ever bound as a query parameter, never written into Cypher or SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

IntentKind = Literal[
    "callers", "callees", "importers", "imports", "subclasses", "bases", "methods", "co_changed",
    "introduced_by", "modified_by", "last_change", "author", "bugfix", "file_memories", "search",
]
Prefer = Literal["code", "history", "memory"]
# Where the subject sits relative to a cue: a captured group `x`, after the cue, or before it.
_Where = Literal["x", "after", "before"]

_Q = r"[`'\"]?"
_NAME = (rf"{_Q}(?P<x>[A-Za-z_][\w.]*(?:/[\w.\-]+)*!?)(?:\(\))?{_Q}"
         r"(?:\s+(?:function|method|class|module|package|file|struct|type|interface))?")
_PATH = rf"{_Q}(?P<x>[\w.\-/]+?){_Q}"
# a few words between "which" and its verb ("which functions of the package does X call", "which files
# inside the package import Y"), never crossing another clause's verb
_GAP = r"(?:\s+(?!(?:does|do|did|is|are|was|were|calls?|imports?)\b)[\w/.\-']+){0,5}?"
# a few words between "does" and the name its verb follows ("what does the package entry point index.js load")
_PRE = r"(?:[\w'\-]+\s+){0,5}?"
# handing work over names a call too ("which helpers does X delegate to", "who hands work to Y")
_DELEGATE = r"delegates?\s+to|hands?\s+(?:work\s+|it\s+)?(?:off\s+|over\s+)?to"
_THING = r"(?:the\s+)?(?:function|method|class|module|package|file|type|struct|interface)?\s*"
_RULES: tuple[tuple[IntentKind, str, _Where], ...] = (
    # history of one entity
    ("last_change", rf"\bwho\s+(?:last\s+|most\s+recently\s+)?(?:changed|modified|touched|edited|updated)\s+{_THING}{_NAME}", "x"),
    ("last_change", rf"\b(?:when|why)\s+was\s+{_THING}{_NAME}\s+(?:last\s+)?(?:changed|modified|touched|edited|updated|rewritten)", "x"),
    ("last_change", rf"\bwhy\s+(?:does|do|did|is|are|was|were)\s+{_THING}{_NAME}", "x"),
    ("last_change", r"\b(?:last|latest|most\s+recent)\s+(?:change|commit|edit|modification)s?\s+(?:to|of|on|in)\b", "after"),
    ("last_change", r"\b(?:which|what)\s+commits?\s+(?:last|most\s+recently|latest)\s+(?:changed|modified|touched|edited|updated)\b", "after"),
    ("introduced_by", rf"\b(?:when|who|why)\s+(?:was|were|did)\s+{_THING}{_NAME}\s+(?:first\s+)?(?:introduced|added|created|written|born|moved)", "x"),
    ("introduced_by", r"\b(?:which|what)\s+commits?\s+(?:first\s+)?(?:introduced|added|created|moved)\b", "after"),
    ("introduced_by", r"\b(?:who|when)\s+(?:first\s+)?(?:introduced|added|created|wrote|moved)\b", "after"),
    ("co_changed", r"\b(?:changed?|changes|modified|edited|updated|touched)\s+(?:together|along|alongside|at\s+the\s+same\s+time)\s+(?:with\b)?|\bco-?chang\w*|\bchanges?\s+with\b", "after"),
    ("modified_by", r"\b(?:which|what)\s+commits?\s+(?:have\s+|has\s+)?(?:modified|changed|touched|edited|updated|rewrote|refactored)\b", "after"),
    ("modified_by", r"\b(?:history|changelog|commits?|changes)\s+(?:of|to|for|on|touching|that\s+touched)\b", "after"),
    ("author", r"\bcommits?\s+(?:made\s+|written\s+|authored\s+|pushed\s+)?(?:by|from)\s+(?P<x>[^?,]+?)\s*(?:[?,.]|$)", "x"),
    # structure
    ("callees", rf"\b(?:what|which){_GAP}\s+(?:does|do)\s+{_PRE}{_NAME}\s+(?:call|invoke|use|{_DELEGATE})\b", "x"),
    # "which functions X calls", "the helpers that X calls"
    ("callees", rf"\b(?:functions?|methods?|helpers?)\s+(?:that\s+|which\s+)?{_NAME}\s+(?:calls|invokes|uses|{_DELEGATE})\b", "x"),
    ("callees", r"\bcallees\b|\b(?:functions?|methods?|what)\s+(?:(?:are|is|get|gets)\s+)?(?:called|invoked)\s+(?:by|from|in|inside|within)\b", "after"),
    ("callees", rf"{_NAME}\s+calls\s+(?:what|which)\b", "x"),
    ("callers", rf"\b(?:who|what|which\s+\w+)\s+(?:{_DELEGATE})\b|\bcallers?\b|\bcall[- ]sites?\b|\bcalls\s+to\b|\b(?:who|what|which\s+\w+(?:\s+\w+)?)\s+(?:calls|call|invokes?|invoke)\b|\bcalls\b|\binvokes?\b", "after"),
    ("callers", rf"\b(?:where|how)\s+(?:is|are)\s+{_THING}{_NAME}\s+(?:called|invoked|used)\b", "x"),
    ("callers", rf"\bis\s+{_THING}{_NAME}\s+(?:called|invoked)\b", "x"),
    ("bases", rf"\bwhat\s+(?:does|do)\s+{_THING}{_NAME}\s+(?:inherit|extend|derive|subclass)\b", "x"),
    ("bases", r"\b(?:base|parent|super)[- ]?class(?:es)?\b|\bsuperclass(?:es)?\b|\bancestors?\b|\binherits?\s+from\s+(?:what|which)\b", "after"),
    ("subclasses", r"\bsub-?class(?:es)?\b|\b(?:inherits?|inheriting|derives?|derived|deriving)\s+from\b|\bextends?\b|\bextending\b|\bchild\s+class(?:es)?\b|\bbased\s+on\b|\bimplement(?:s|ations?)?\s+(?:of\s+)?", "after"),
    ("methods", rf"\bwhat\s+methods\s+(?:does|do)\s+{_THING}{_NAME}\s+(?:have|define|expose|offer)\b", "x"),
    ("methods", r"\b(?:methods?|functions?)\s+(?:(?:are|is)\s+)?(?:defined\s+(?:on|in|by)|belong(?:s|ing)?\s+to)\b|\bmethods?\s+(?:of|on|in)\b|\b(?:functions?|members?)\s+(?:of|in|on)\s+(?:the\s+)?(?:class|struct|type)\b", "after"),
    ("imports", rf"\b(?:what|which){_GAP}\s+(?:does|do)\s+{_PRE}{_NAME}\s+(?:import|depend\s+on|require|pull\s+in|load|rely\s+on)\b", "x"),
    ("imports", r"\b(?:imports|dependencies|requirements)\s+of\b|\b(?:imported|required)\s+by\b", "after"),
    # "what core.py imports from click.types", "the names M imports from N"
    ("imports", rf"\b(?:what|which|names?|symbols?)(?:\s+\w+){{0,3}}?\s+{_NAME}\s+(?:imports|requires|pulls\s+in|loads)\s+from\b", "x"),
    ("importers", rf"\bimporters?\b|\bdependents\b|\b(?:who|what|which){_GAP}\s+(?:imports?|requires?|depends?\s+on|uses?|relies\s+on|pulls?\s+in)\b|\bdepends?\s+on\b", "after"),
    ("importers", rf"\bwhere\s+(?:is|are)\s+{_THING}{_NAME}\s+(?:imported|required)\b", "x"),
    ("file_memories", rf"\b(?:memories|memory|notes?|decisions?)\s+(?:about|on|for|of)\s+(?:the\s+)?(?:file\s+)?{_PATH}\s*\??$", "x"),
)
_PATTERNS = tuple((k, re.compile(p, re.I), w) for k, p, w in _RULES)
_FROM = re.compile(rf"\bfrom\s+{_THING}{_NAME}", re.I)  # the module an import question names its names from
_BUGFIX = re.compile(r"(?:bug|issue|ticket)?\s*#(?P<x>\d+)", re.I)
_FIX_WORDS = re.compile(r"\b(fix|fixed|fixes|fixing|resolved|solved|closed)\b", re.I)
# A subject of these kinds is a class; of these, a module or file; of the rest, a function or class.
CLASS_KINDS = ("subclasses", "bases", "methods")
MODULE_KINDS = ("importers", "imports")
# history of an entity the question may describe instead of naming ("the helper that masks the header")
DESCRIBABLE_KINDS = ("introduced_by", "modified_by", "last_change")
HISTORY_KINDS = ("last_change", "introduced_by", "co_changed", "modified_by", "author", "bugfix")

_LABEL_WORDS = {
    "function": "Function", "functions": "Function", "method": "Function", "methods": "Function",
    "class": "Class", "classes": "Class", "module": "Module", "modules": "Module",
    "commit": "Commit", "commits": "Commit", "bug": "Bug", "bugs": "Bug",
    "memory": "Memory", "memories": "Memory", "note": "Memory", "notes": "Memory",
}
_POLITE = ("every each some most usually often typically always generally file files folder folders directory "
           "directories please could would you tell me show list give want know let can us kindly thanks thank "
           "hey hi hello i we our my need help find anywhere exactly really actually also just")
_CUE = ("calls call called calling caller callers callee callees invoke invokes invoked uses use used using "
        "import imports imported importer importers depends depend dependents dependencies requires require "
        "inherit inherits inheriting inherited extends extend extending derived derive derives subclass "
        "subclasses superclass base parent child methods method member members defined define "
        "changed change changes modified modify touched edited updated introduced added created history "
        "together along alongside same time last latest recent first most")
STOPWORDS = frozenset(
    "a an and are as at be by did do does for from has have how i in is it its of on or that the this to "
    "was were what when where which who whom why with about related relating around into all any "
    "fix show find me there these those their them then than other others only inside outside within "
    "under package library code codebase repo repository project src source".split()
) | frozenset(_LABEL_WORDS) | frozenset(_POLITE.split()) | frozenset(_CUE.split())

_SEARCH_STOPWORDS = STOPWORDS - frozenset(_CUE.split()) - frozenset(
    "only inside outside within under package library code codebase repo repository project src source".split())
# "the function that ...", "a helper which ...": the subject is described
_DESCRIBED = re.compile(r"\b(?:the|a|an|any)\s+(?:\w+\s+)?(?:functions?|methods?|helpers?|code|routines?|handlers?)\s+"
                       r"(?:that|which)\b", re.I)
_DESCRIBES = re.compile(r"\b(?:that|which|who|whose)\b", re.I)  # what follows describes, not names
_RELATIVE = re.compile(r"\s+(?:that|which|who|whose|where|when|to|for|of|in|with)\b", re.I)  # a description goes on
# a Ruby instance method is written `Base#settings` (`Base.settings` is the class's own where both exist)
_TOKEN = re.compile(r"`(?P<bt>[^`]+)`|(?P<id>[A-Za-z_][\w.]*(?:/[\w.\-]+)*[\w](?:#[A-Za-z_]\w*)?[!?]?|[A-Za-z_])"
                    r"(?P<call>\(\))?")
_PATH_SEP = re.compile(r"(?<=\w)::(?=[A-Za-z_])")  # `Sinatra::Base`, `crate::io::read`: a dotted name
_IDENT = re.compile(r"[A-Za-z_][\w.]*[\w]|[A-Za-z_]")
_PATHLIKE = re.compile(r"[\w.\-]+(?:/[\w.\-]+)+|[\w\-]+\.(?:py|js|mjs|cjs|ts|tsx|go|java|kt|kts|swift|php|rs|c|h|cpp|hpp|rb|cs|md)\b")
_BUGREF = re.compile(r"#\d+")
_HISTORY_CUES = re.compile(
    r"^\s*(?:when|who|why)\b|\b(?:which|what)\s+commits?\b|\bcommits?\s+(?:by|from|that|which)\b|"
    r"\bhow\s+(?:was|were|did)\b.*\b(?:fix|fixed|change|changed|solve|solved|resolve|resolved)\b|"
    r"\b(?:history|changelog|authored|introduced|regression\s+since)\b|\blast\s+(?:changed|modified)\b", re.I)
_CODE_CUES = re.compile(
    r"\b(?:where|which|what)\s+(?:\w+\s+)?(?:function|method|class|module|file|code|handler|struct|type)s?\b|"
    r"\bwhere\s+(?:is|are|does|do)\b|\b(?:implemented|defined|handles?|responsible|implementation)\b", re.I)
_PAST_WORDS = re.compile(
    r"\b(?:removed|deleted|dropped|used\s+to|no\s+longer|previously|formerly|old(?:er)?\s+versions?|renamed|"
    r"deprecated|in\s+the\s+past|anymore|went\s+away|got\s+rid)\b", re.I)
_MEMORY_CUES = re.compile(
    r"\b(?:did|do|have)\s+we\s+(?:decide|agree|choose|chose|learn|note|say|settle)\w*\b|\bwe\s+(?:decided|agreed|chose|noted|learned)\b|"
    r"\bour\s+(?:decision|convention|rule|guideline|policy|notes?)\b|\b(?:decisions?|conventions?|gotchas?|lessons?)\s+(?:about|on|for)\b|"
    r"\bwhat\s+do\s+we\s+know\s+about\b|\b(?:remembered|stored)\s+about\b", re.I)
# Tests are what a question asks for ("which tests call X", "the tests for Y", "where is Z tested"),
# not what it leaves out ("not counting tests", "non-test code") nor the subject of a how-question
# ("how can a test run my command": the helper a test calls answers it).
_ASKS_FOR_TESTS = re.compile(
    r"\b(?:which|what|the|any|all|existing|list|find)\s+(?:unit\s+|integration\s+)?"
    r"(?:tests?|specs?|fixtures?|test\s+(?:suite|cases?|files?|functions?))\b(?![\s-]+(?:runner|client|helper|tool|util))|"
    r"\b(?:tests?|specs?|test\s+cases?)\s+(?:for|of|that|which|cover\w*|exercis\w*|call\w*|us(?:e|es|ing)|touch\w*)\b|"
    r"\b(?:tested|covered\s+by\s+(?:the\s+)?tests?)\b", re.I)
_NOT_TESTS = re.compile(
    r"\b(?:not|excluding|exclude|outside(?:\s+of)?|apart\s+from|except(?:\s+for)?|ignor(?:e|ing)|leav(?:e|ing)\s+out|"
    r"not\s+counting|without|skip(?:ping)?)\s+(?:the\s+)?(?:[\w-]+\s+(?:and|or)\s+)?(?:the\s+)?"
    r"(?:tests?|test\s+files|examples?)\b(?:\s+(?:and|or)\s+[\w-]+)?|"
    r"\bnon-?test\b|\btests?\s+(?:are\s+)?excluded\b", re.I)
_PACKAGE_SCOPE = re.compile(  # the package's own code: named, or what is left when tests are left out
    r"\b(?:inside|in|within)\s+the\s+(?:package|library|source|codebase|code\s+base)\b|\bpackage\s+code\b|"
    r"\bproduction\s+code\b|" + _NOT_TESTS.pattern, re.I)
_DIR_SCOPE = re.compile(
    r"\b(?:only\s+)?(?:in|under|inside|within)\s+(?:the\s+)?[`'\"]?(?P<d>[\w.\-]+(?:/[\w.\-]+)*)/[`'\"]?|"
    r"\bonly\s+(?:in|under|inside|within)\s+(?:the\s+)?[`'\"]?(?P<o>[\w.\-]+(?:/[\w.\-]+)*)[`'\"]?|"
    r"\b(?:in|inside|within|under)\s+(?:the\s+)?[`'\"]?(?P<s>src|lib|pkg|internal|app|cmd)\b(?![.\w])", re.I)
# "When a request crashes, where is the header blanked out?": a leading condition, then the question
_CONDITION = re.compile(r"^\s*(?:when|whenever|if|once|while|after|before)\b[^?]*?,\s*"
                        r"(?=(?:where|which|what|how|who|why|when)\b)", re.I)
# "why are X never gzipped, and where is that decided?": a second question asking for the code
_ALSO_WHERE = re.compile(r"(?:,|\band\b|\bor\b)\s*(?:also\s+)?where\s+(?:is|are|does|do|was)\b", re.I)
LONG_QUESTION = 24  # words: past this a question is a description (a bug report), searched, not parsed for a relation


@dataclass(frozen=True)
class Intent:
    """The kind of question, its subject and the other names to try, and the hints around them.

    `about_past`: a history question, or one about what was removed, renamed or used to be, so
    entities that no longer exist are not ranked below live ones.
    `prefer`: "code" when the question asks where / which function, "history" when it asks when /
    who / why or for commits, "memory" when it asks what the team decided, agreed or noted.
    `about_tests`: the question asks for tests (not one that leaves them out, nor a bug report that
    mentions one), so tests are not ranked below package code. `scope`: "package" (leave out tests,
    examples, docs) or a folder (`src/`) the question limits itself to.
    """

    kind: IntentKind
    subject: str | None = None
    labels: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    bug_refs: tuple[str, ...] = ()
    words: tuple[str, ...] = field(default=())
    candidates: tuple[str, ...] = ()
    prefer: Prefer | None = None
    about_tests: bool = False
    scope: str | None = None
    about_past: bool = False
    source: str | None = None  # "what does M import from N": N
    # "who calls the function that parses the header": a relation whose subject is described, not named
    # (the code the question describes stands in for it: `retrieve`)
    described: IntentKind | None = None
    # "why does X ...", "why was X changed": a reason is asked for. Where X names nothing of the
    # home, no commit of the code the question describes stands in for it (`retrieve`): a memory or
    # a commit message that gives the reason is found by search.
    explains: bool = False


def _looks_like_code(token: str) -> bool:
    return "_" in token or "." in token or "/" in token or "#" in token or any(c.isupper() for c in token[1:]) or token.endswith("()")


def _tokens(text: str) -> list[tuple[int, str, int]]:
    """(position, name, strength) of every name-like token: 3 backticked, 2 code-like, 1 capitalised, 0 a word."""
    out = []
    for m in _TOKEN.finditer(text):
        if m.group("bt"):
            name = m.group("bt").strip().removesuffix("()")
            if name:
                out.append((m.start(), name, 3))
            continue
        name = m.group("id").rstrip(".")
        if len(name) < 2 and not m.group("call"):
            continue
        if m.group("call") or _looks_like_code(name):
            out.append((m.start(), name, 2))
        elif name.rstrip("?!").lower() not in STOPWORDS:
            out.append((m.start(), name, 1 if name[0].isupper() and m.start() > 0 else 0))
    return out


def _candidates(text: str, kind: IntentKind, cue: re.Match[str] | None, where: _Where) -> list[str]:
    """The names a relation could be about, best first: the captured one, then the strongest names
    on the cue's side (nearest first), then the other code-like names.

    A plain word ("echo") is a candidate only right at the cue ("what calls echo"), never inside a
    description ("the helper that lists the commands"), where it is a word, not a name.
    """
    toks = [t for t in _tokens(text) if t[1].rstrip("?!").lower() not in STOPWORDS]
    first: list[str] = []
    if cue is not None and where == "x" and cue.groupdict().get("x"):
        x = cue.group("x").strip().strip("`'\"").removesuffix("()")
        # a plain word that goes on with a hyphen ("server-sent events") is half of a word, not a name
        compound = _is_plain(x) and text[cue.end("x"):cue.end("x") + 1] == "-"
        if x.lower() not in STOPWORDS and not compound and not (_is_plain(x) and _RELATIVE.match(text, cue.end("x"))):
            first.append(x)
    if cue is not None and where in ("after", "before"):
        side = [t for t in toks if (t[0] >= cue.end() if where == "after" else t[0] < cue.start())]
        side.sort(key=lambda t: t[0] if where == "after" else -t[0])
        named = [t for t in side if t[2] > 0]
        plain = side[:1] if side and side[0][2] == 0 and where == "after" else []
        # a plain word inside a description is a word: "who calls the function that *detects* the syntax"
        if plain and (_RELATIVE.match(text, plain[0][0] + len(plain[0][1]))
                      or (where == "after" and _DESCRIBES.search(text, cue.end(), plain[0][0]))):
            plain = []
        first += [n for _, n, _ in sorted(named, key=lambda t: -t[2])] + [n for _, n, _ in plain]
    rest = [n for _, n, strength in sorted(toks, key=lambda t: (-t[2], t[0])) if strength > 0]
    names = first + rest
    if kind not in ("author", "file_memories"):
        # a Ruby method's own `!` (`dispatch!`) before the name without it; a `?` is the question's mark before
        # it is a method's (`valid?`): both are tried, the first the graph knows answers
        names = [v for n in names for v in _suffixed(n.rstrip(".,;:"))]
    return list(dict.fromkeys(n for n in names if n))


def _suffixed(name: str) -> tuple[str, ...]:
    bare = name.rstrip("?!")
    if name == bare:
        return (name,)
    return (name, bare) if name.endswith("!") else (bare, name)


def _is_plain(name: str) -> bool:
    return not _looks_like_code(name) and not name[:1].isupper()


def _scope(text: str) -> str | None:
    if _PACKAGE_SCOPE.search(text):
        return "package"
    m = _DIR_SCOPE.search(text)
    if m:
        d = (m.group("d") or m.group("o") or m.group("s") or "").strip("/")
        if d and d.lower() not in ("the", "package", "library", "codebase", "repo", "repository", "project"):
            return d + "/"
    return None


def _about_tests(text: str, long: bool) -> bool:
    """The question asks for tests, so they are not ranked below package code: never a long
    description (a bug report that mentions its failing test), never tests it leaves out."""
    return not long and bool(_ASKS_FOR_TESTS.search(_NOT_TESTS.sub(" ", text)))


def parse(text: str) -> Intent:
    """The intent of a question; `search` with its names, paths and bug refs when no relation fits."""
    t = _PATH_SEP.sub(".", " ".join(text.strip().split()))
    kind: IntentKind = "search"
    cue: re.Match[str] | None = None
    where: _Where = "after"
    m = _BUGFIX.search(t)
    if m and _FIX_WORDS.search(t):
        kind, cue, where = "bugfix", m, "x"
    elif len(t.split()) <= LONG_QUESTION:
        for k, pat, w in _PATTERNS:
            m = pat.search(t)
            if m:
                kind, cue, where = k, m, w
                break
    candidates = _candidates(t, kind, cue, where) if kind != "search" else []
    if kind == "author":
        candidates = [cue.group("x").strip()] if cue else []
    elif kind == "bugfix":
        candidates = [cue.group("x")] if cue else []
    elif kind == "file_memories":
        candidates = [cue.group("x").strip("`'\"")] if cue else []
    asks_where = bool(_ALSO_WHERE.search(t))
    described: IntentKind | None = None
    if kind == "callers" and not candidates and cue is not None and _DESCRIBED.search(t, cue.end()):
        described = kind
    elif (kind == "callees" and cue is not None and cue.groupdict().get("x")
          and _DESCRIBED.search(t, cue.start(), cue.start("x"))):  # "what does the function that parses X call"
        described, candidates = kind, []
    if kind in DESCRIBABLE_KINDS and asks_where:  # "why does X retry, and where is that decided?": code answers
        kind, candidates = "search", []
    elif kind != "search" and not candidates and kind not in DESCRIBABLE_KINDS:
        kind = "search"
    subject = candidates[0] if candidates else None
    lowered = [w.strip("?,.;:!()`'\"").lower() for w in t.split()]
    labels = tuple(dict.fromkeys(_LABEL_WORDS[w] for w in lowered if w in _LABEL_WORDS))
    paths = tuple(dict.fromkeys(_PATHLIKE.findall(t)))
    bug_refs = tuple(dict.fromkeys(_BUGREF.findall(t)))
    rest = _PATHLIKE.sub(" ", t)
    names, words = [], []
    for tok in _IDENT.findall(rest.replace("`", " ")):
        tok = tok.rstrip(".")
        if tok.lower() in (STOPWORDS if kind != "search" else _SEARCH_STOPWORDS) or len(tok) < 2:
            continue
        (names if _looks_like_code(tok) else words).append(tok)
    if subject and kind not in ("author", "bugfix", "file_memories") and subject not in names:
        names.insert(0, subject)
    long = len(t.split()) > LONG_QUESTION  # a description of a behaviour or a bug: it asks where in the code
    prefer: Prefer | None = None
    main = t[m.end():] if (m := _CONDITION.match(t)) else t  # a leading "when ..." clause is a condition
    if kind in HISTORY_KINDS or (kind == "search" and not long and not asks_where and _HISTORY_CUES.search(main)):
        prefer = "history"
    elif kind == "search" and _MEMORY_CUES.search(t):
        prefer = "memory"  # "what did we decide about ...": the team's stored memories answer it
    elif kind != "search" or long or _CODE_CUES.search(t):
        prefer = "code"
    source = None
    if kind == "imports" and cue is not None:
        found = _FROM.search(t, cue.end("x") if cue.groupdict().get("x") else cue.end())
        source = found.group("x").strip("`'\".") if found else None
        source = None if source is None or source.lower() in STOPWORDS or source == subject else source
        if source:  # "the module M": the label word names the subject; the answer is whatever M imports by name
            labels = ()
    return Intent(kind, subject, labels, tuple(dict.fromkeys(names)), paths, bug_refs, tuple(dict.fromkeys(words)),
                  tuple(candidates), prefer, _about_tests(t, long), _scope(t),
                  kind in HISTORY_KINDS or bool(_PAST_WORDS.search(t)), source, described,
                  cue is not None and cue.group(0).lower().startswith("why"))
