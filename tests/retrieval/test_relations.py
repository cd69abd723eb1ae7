"""Relation questions answered from the graph on a real mined repository, in the phrasings users
type, and what their hits show: subclasses, methods, imports, co-change, the commits that modified
or introduced an entity, a removed function, and an unknown name that is said to be unknown."""

from pathlib import Path

import pytest

from ltm.home import Home
from ltm.query import HybridLTM
from tests.builder import RepoBuilder
from tests.retrieval.fixture import ingest

ADA, GRACE, LINUS = ("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.com"), ("Linus", "linus@example.com")
BASE = '''class Shape:
    def area(self):
        return 0

    def describe(self):
        return "shape of area %s" % self.area()
'''
SHAPES = '''from pkg.base import Shape


class Circle(Shape):
    def area(self):
        return 3.14


class Square(Shape):
    def area(self):
        return 1.0
'''
RENDER = '''import json

from pkg.shapes import Circle


def draw():
    return json.dumps(Circle().describe())
'''
TESTS = '''from pkg.base import Shape
from pkg.shapes import Circle


class FakeShape(Shape):
    pass


def test_area():
    assert Circle().area() > 3
'''
GRAPH_STRATEGIES = ("graph_first", "parallel", "graph_only")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Home, dict[str, str], str]:
    root = tmp_path_factory.mktemp("relations")
    b = RepoBuilder(root / "shapes")
    b.write("pkg/__init__.py", "").write("pkg/base.py", BASE).write("pkg/legacy.py", "def old_draw():\n    return None\n")
    c = {"base": b.commit("Add the Shape base class", author=ADA)}
    b.write("pkg/shapes.py", SHAPES).write("tests/test_shapes.py", TESTS)
    c["shapes"] = b.commit("Add circles and squares", author=GRACE)
    b.write("pkg/base.py", BASE.replace("shape of area", "a shape of area")).write("pkg/shapes.py", SHAPES.replace("3.14", "3.1416"))
    c["together"] = b.commit("Describe shapes with their precise area", author=LINUS)
    b.write("pkg/base.py", BASE.replace("shape of area", "a shape of area").replace("return 0", "return 0.0"))
    b.write("pkg/shapes.py", SHAPES.replace("3.14", "3.1416").replace("1.0", "1"))
    c["areas"] = b.commit("Areas are floats", author=GRACE)
    b.write("pkg/render.py", RENDER).delete("pkg/legacy.py")
    c["render"] = b.commit("Draw circles; drop the legacy drawing code", author=ADA)
    h = Home(root / "home")
    key = ingest(h, root / "shapes", extra=False)
    return h, c, key


def _top(home, question, strategy, k=5):
    h, _, _ = home
    with HybridLTM(h) as m:
        return m.query(question, strategy=strategy, top_k=k)


def _ids(hits):
    return [x["graph_entity_id"] for x in hits]


@pytest.mark.parametrize("strategy", GRAPH_STRATEGIES)
@pytest.mark.parametrize("question", ["which classes inherit from Shape?", "could you list every subclass of pkg.base.Shape",
                                      "what extends Shape inside the package"])
def test_subclasses_in_the_package_lead(home, strategy, question):
    _, _, key = home
    top = _ids(_top(home, question, strategy))[:2]
    assert set(top) == {f"cls:{key}:pkg/shapes.py:Circle", f"cls:{key}:pkg/shapes.py:Square"}


@pytest.mark.parametrize("strategy", GRAPH_STRATEGIES)
def test_methods_bases_and_imports(home, strategy):
    _, _, key = home
    assert _ids(_top(home, "what are the methods of the Circle class?", strategy))[0] == f"fn:{key}:pkg/shapes.py:Circle.area"
    assert _ids(_top(home, "what does Square inherit from", strategy))[0] == f"cls:{key}:pkg/base.py:Shape"
    assert f"mod:{key}:pkg.shapes" in _ids(_top(home, "what does pkg.render import?", strategy))[:2]


@pytest.mark.parametrize("strategy", GRAPH_STRATEGIES)
@pytest.mark.parametrize("question", ["Which of the package's own modules does pkg/render.py depend on?",
                                      "what does the drawing module pkg/render.py load?"])
def test_imports_name_the_own_modules_before_other_packages(home, strategy, question):
    _, _, key = home
    top = _ids(_top(home, question, strategy))
    assert top[0] == f"mod:{key}:pkg.shapes"
    assert f"mod:{key}:ext:python:json" in top[1:]  # another package: still an answer, after ours


@pytest.mark.parametrize("strategy", GRAPH_STRATEGIES)
@pytest.mark.parametrize("question,wanted", [
    ("what does pkg.shapes import from pkg.base?", "pkg/base.py:Shape"),
    ("which names does the module pkg/shapes.py import from pkg.base", "pkg/base.py:Shape"),
    ("could you tell me what tests/test_shapes.py imports from pkg.shapes", "pkg/shapes.py:Circle"),
])
def test_what_a_module_imports_from_another_is_the_names_it_imports(home, strategy, question, wanted):
    _, _, key = home
    top = _ids(_top(home, question, strategy))
    assert top[0] == f"cls:{key}:{wanted}"  # the class imported by name, ahead of the module it comes from
    assert f"cls:{key}:pkg/shapes.py:Square" not in top[:2]  # defined there, not imported


@pytest.mark.parametrize("strategy", ("graph_first", "parallel"))
def test_history_of_an_entity(home, strategy):
    _, c, key = home
    modified = _ids(_top(home, "which commits modified Shape.describe?", strategy))
    assert set(modified[:2]) == {f"commit:{key}:{c['base']}", f"commit:{key}:{c['together']}"}  # not "areas"
    assert _ids(_top(home, "which commit introduced Circle.area", strategy))[0] == f"commit:{key}:{c['shapes']}"
    together = _ids(_top(home, "which files usually change together with pkg/base.py?", strategy))
    assert together[0] == f"file:{key}:pkg/shapes.py"
    # the last commit of a file named by its path (render.py's commit did not touch base.py)
    assert _ids(_top(home, "Which commit last changed pkg/base.py?", strategy))[0] == f"commit:{key}:{c['areas']}"
    importers = _ids(_top(home, "Which files inside the package import pkg.shapes?", strategy))
    assert importers[0] == f"file:{key}:pkg/render.py"  # the importing file first, tests after


def test_a_commit_hit_shows_its_short_sha_author_date_and_subject(home):
    _, c, _ = home
    hit = _top(home, "who last changed Shape.describe and why", "parallel")[0]
    assert hit["label"] == "Commit" and hit["sha"] == c["together"] and hit["name"] == c["together"][:10]
    assert hit["author"] == "Linus" and hit["summary"] == "Describe shapes with their precise area"
    assert len(hit["date"]) == 10 and hit["date"][:2] == "20"


def test_a_removed_function_says_where_it_was_removed(home):
    _, c, key = home
    hits = _top(home, "where was old_draw before it was removed?", "graph_only")
    gone = next(x for x in hits if x["graph_entity_id"] == f"fn:{key}:pkg/legacy.py:old_draw")
    assert gone["removed_in"] == c["render"][:10]


@pytest.mark.parametrize("strategy", GRAPH_STRATEGIES)
def test_an_unknown_name_is_said_to_be_unknown(home, strategy):
    hits = _top(home, "what calls frobnicate_widgets?", strategy)
    assert all("no function or module named 'frobnicate_widgets'" in x["notice"] for x in hits)
    known = _top(home, "what calls Shape.describe?", strategy)
    assert known and not any("notice" in x for x in known)
    assert _ids(known)[0].endswith(":pkg/render.py:draw")


@pytest.mark.parametrize("strategy", ("graph_first", "parallel"))
def test_a_described_subject_stands_in_for_a_name(home, strategy):
    """"Which commit added the code that ..." names nothing: the code the words find stands in for it."""
    _, c, key = home
    hits = _top(home, "which commit added the method that returns the area of a circle?", strategy)
    assert hits[0]["graph_entity_id"] == f"commit:{key}:{c['shapes']}"
    assert "the code the question describes" in hits[0]["why"][0] and "notice" not in hits[0]


HEADERS = '''def mask_header(value):
    """Replace the value of a sensitive header with stars, so logs never show tokens."""
    return "*" * len(value)


def send(request):
    request["authorization"] = mask_header(request["authorization"])
    return request


def log_line(request):
    return " ".join(sorted(request))
'''


@pytest.mark.parametrize("strategy", ("graph_first", "parallel"))
def test_who_calls_a_described_function_gets_its_callers_first(tmp_path, strategy):
    """"Who calls the function that ..." names nothing: the function the words find stands in for the
    name, and what calls it leads (the description's verb, `replaces`, is no name)."""
    b = RepoBuilder(tmp_path / "net")
    b.write("net/headers.py", HEADERS).commit("Mask sensitive headers before sending")
    h = Home(tmp_path / "home")
    key = ingest(h, b.path, extra=False)
    with HybridLTM(h) as m:
        hits = m.query("who calls the function that replaces sensitive header values with stars?", strategy=strategy,
                       top_k=5)
    assert hits[0]["graph_entity_id"] == f"fn:{key}:net/headers.py:send"
    assert hits[0]["why"][0] == "graph: calls mask_header, the code the question describes"
    assert not any("notice" in x for x in hits)


ROUTING = '''import functools


def get_name(endpoint):
    """The route's name: the endpoint's __name__, else its class name."""
    return getattr(endpoint, "__name__", endpoint.__class__.__name__)


def partial(template, **values):
    """Render part of a page."""
    return template.format(**values)


def prompt_styled(text):
    """Ask the user, stripping colour codes the test runner cannot show."""
    return input(text)
'''


@pytest.fixture(scope="module")
def routes(tmp_path_factory):
    root = tmp_path_factory.mktemp("routes")
    b = RepoBuilder(root / "web")
    b.write("web/routing.py", ROUTING).commit("Name routes after their endpoint; render partials")
    b.write("web/routing.py", ROUTING.replace("Render part", "Render one part")).commit("Say what partial renders")
    h = Home(root / "home")
    key = ingest(h, b.path, extra=False)
    with HybridLTM(h) as m:
        m.add("A route whose endpoint is a functools.partial gets the name 'partial': always pass name= "
              "to the route for partial endpoints.", {"id": "partial-names"})
        m.add("Styled confirm prompts strip ANSI codes themselves because the test runner patches the "
              "terminal check; look it up at call time.", {"id": "styled-prompts"})
    return h, key


@pytest.mark.parametrize("strategy", ("graph_first", "parallel"))
def test_a_name_qualified_by_another_package_is_not_a_function_of_ours(routes, strategy):
    """`functools.partial` is functools' (the code imports it): the repository's own `partial`
    does not stand in for it, so its commits do not lead the answer."""
    h, _ = routes
    with HybridLTM(h) as m:
        hits = m.query("Why did a route whose endpoint is a functools.partial end up named 'partial'?",
                       strategy=strategy, top_k=5)
    assert not any("last changed partial" in w for x in hits for w in x["why"])
    assert "mem:online:partial-names" in _ids(hits)[:3]


@pytest.mark.parametrize("strategy", ("graph_first", "parallel"))
def test_why_a_described_behaviour_is_answered_by_search_not_by_the_last_commits(routes, strategy):
    """"Why do styled prompts ...?" names no code: the note that gives the reason answers it, not
    the commits that last changed whatever code the words find."""
    h, _ = routes
    with HybridLTM(h) as m:
        hits = m.query("Why do styled confirm prompts need special care under the test runner?",
                       strategy=strategy, top_k=5)
    assert not any("the code the question describes" in w for x in hits for w in x["why"])
    assert hits[0]["graph_entity_id"] == "mem:online:styled-prompts"


def test_the_same_question_gets_the_same_hits_every_time(tmp_path):
    """A file with more functions than a graph match keeps: the ones kept, and their ranks, do not
    change from one asking to the next (Kuzu's parallel scan returns rows in no fixed order)."""
    b = RepoBuilder(tmp_path / "many")
    b.write("pkg/many.py", "".join(f"def helper_{i:02d}(x):\n    return x + {i}\n\n\n" for i in range(60)))
    b.commit("Sixty helpers")
    h = Home(tmp_path / "home")
    ingest(h, b.path, extra=False)
    with HybridLTM(h) as m:
        answers = {tuple(_ids(m.query("what is in pkg/many.py?", strategy="graph_only", top_k=20))) for _ in range(25)}
    assert len(answers) == 1


SPLIT = '''def split_words(line):
    """Break a line into words."""
    return line.split()
'''


@pytest.mark.parametrize("strategy", ("graph_first", "parallel"))
def test_which_commit_moved_a_function_into_a_file(tmp_path, strategy):
    """"Which commit moved X into F" asks when X appeared in F: the first commit of X's entity in F,
    not the first commit of X anywhere (its old file's)."""
    b = RepoBuilder(tmp_path / "text")
    join = "def join_words(words):\n    return ' '.join(words)\n"
    keep = "def count_lines(text):\n    return len(text.splitlines())\n"
    b.write("text/__init__.py", "").write("text/old.py", keep + "\n\n" + SPLIT).write("text/words.py", join)
    b.commit("Add the text helpers", author=ADA)
    b.write("text/old.py", keep + "\n\n" + SPLIT.replace("Break", "Cut")).commit("Word the docstring", author=GRACE)
    b.write("text/old.py", keep).write("text/words.py", join + "\n\n" + SPLIT.replace("Break", "Cut"))
    moved = b.commit("Keep the word helpers together", author=LINUS)
    b.write("text/words.py", join + "\n\n" + SPLIT.replace("line.split()", "line.split(None)"))
    b.commit("Split on any space", author=ADA)
    h = Home(tmp_path / "home")
    key = ingest(h, b.path, extra=False)
    with HybridLTM(h) as m:
        hits = m.query("Which commit moved split_words into words.py?", strategy=strategy, top_k=5)
    assert hits[0]["graph_entity_id"] == f"commit:{key}:{moved}"


def test_a_rust_module_is_named_by_its_last_path_segment(tmp_path):
    """"What imports exit_codes" names Rust's `crate::exit_codes`: the files that declare (`mod exit_codes;`) or
    `use` it, never a file's own `use super::*` in its test module."""
    b = RepoBuilder(tmp_path / "tool")
    b.write("src/main.rs", "mod exit_codes;\nmod walk;\n\nfn main() {}\n")
    b.write("src/exit_codes.rs", "pub enum ExitCode { Success }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n")
    b.write("src/walk.rs", "use crate::exit_codes::ExitCode;\n\npub fn scan() -> ExitCode { ExitCode::Success }\n")
    b.commit("A tool")
    h = Home(tmp_path / "home")
    key = ingest(h, b.path, extra=False)
    with HybridLTM(h) as m:
        hits = _ids(m.query("what imports exit_codes", strategy="graph_only", top_k=5))
    assert set(hits[:2]) == {f"file:{key}:src/main.rs", f"file:{key}:src/walk.rs"}
    assert f"file:{key}:src/exit_codes.rs" not in hits


def test_a_ruby_instance_method_is_asked_for_as_ruby_writes_it(tmp_path):
    """`Store#open` is the instance method where the class has a `def self.open` too, `Store.open` the class's
    own; `Store#flush` names the instance method that nothing else shares a name with (`Store.flush`)."""
    b = RepoBuilder(tmp_path / "store")
    b.write("lib/store.rb", "class Store\n  def self.open(path)\n    new.open(path)\n  end\n\n  def open(path)\n"
                            "    flush\n  end\n\n  def flush\n    1\n  end\nend\n")
    b.write("lib/boot.rb", "require 'store'\n\ndef boot\n  Store.open('/x')\nend\n\ndef reopen\n  Store.new.open('/y')\nend\n")
    b.commit("A store")
    h = Home(tmp_path / "home")
    key = ingest(h, b.path, extra=False)
    with HybridLTM(h) as m:
        instance = _ids(m.query("what calls Store#open", strategy="graph_only", top_k=5))
        singleton = _ids(m.query("what calls Store.open", strategy="graph_only", top_k=5))
        flush = _ids(m.query("what calls Store#flush", strategy="graph_only", top_k=5))
    # the callers lead; what follows are the names themselves and other matches of the words
    assert set(instance[:2]) == {f"fn:{key}:lib/boot.rb:reopen", f"fn:{key}:lib/store.rb:Store.open"}
    assert singleton[0] == f"fn:{key}:lib/boot.rb:boot"
    assert flush[0] == f"fn:{key}:lib/store.rb:Store#open"
