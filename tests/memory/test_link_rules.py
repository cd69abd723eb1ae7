"""The linking rules of #17 (precision): two real repositories in one home, memories imported and
linked by the real ingest; each test reads the links of its memory as a user would see them."""

import json

import pytest
from dagster import DagsterInstance, materialize

from assets import ALL_ASSETS
from ltm.home import Home
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.memory.store import import_memories
from ltm.repos import register_local
from tests.assets.test_materialize import _resources
from tests.builder import RepoBuilder

CART = '''"""The shopping cart."""


class Cart:
    def checkout_total(self, rows):
        return round(sum(rows), 2)

    def render(self):
        return "cart"


def retry(fn, times=3):
    for _ in range(times - 1):
        try:
            return fn()
        except OSError:
            pass
    return fn()


def normalize_name(name):
    return name.strip()
'''
FORMS = '''def normalize_name(name):
    return name.strip().lower()
'''
STORE = '''from typing import overload


class Store:
    @overload
    def get_item(self, key: int) -> int: ...
    @overload
    def get_item(self, key: str) -> str: ...
    def get_item(self, key):
        return key
'''
PARAMS = '''class Parameter:
    def consume_value(self, ctx):
        return ctx

    def handle_parse_result(self, ctx):
        return self.consume_value(ctx)


class Option(Parameter):
    def consume_value(self, ctx):
        return super().consume_value(ctx)
'''
SESSION = '''class Session:
    def __init__(self):
        self.cookies = {}
'''
VIEWS = '''def render_page(title):
    return f"<h1>{title}</h1>"
'''
PAGES = '''def render_page(title, rows):
    return title + paginate_rows(rows)


def paginate_rows(rows, size=20):
    return rows[:size]
'''

MEMORIES = {
    "word-bare": ("retry must back off before the second attempt", None),
    "word-call": ("retry() must back off before the second attempt", None),
    "word-ticks": ("wrap the flaky upload in `retry` and keep the default", None),
    "word-noun": ("the retry helper swallows OSError on every try but the last", None),
    "class-word": ("the Session keeps the cookies between calls", None),
    "overload": ("Store.get_item returns the key unchanged", None),
    "own-file": ("normalize_name lowercases here, unlike the cart's copy", "shop/forms.py"),
    "owner": ("Parameter.handle_parse_result runs consume_value first", None),
    "home-file": ("render_page escapes nothing: pass trusted titles only", "shop/cart.py"),
    "home-vote": ("paginate_rows cuts what render_page shows to twenty rows", None),
    "cross-qualified": ("unlike pages.render_page of the web app, checkout_total rounds", "shop/cart.py"),
    "path": ("the totals live in shop/cart.py and are shown by views.py", None),
    "possessive": ("Cart's checkout_total rounds half to even", None),
}


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    """memory id -> {linked entity id without the repository key: its relevance_score}."""
    root = tmp_path_factory.mktemp("rules")
    shop = RepoBuilder(root / "shop")
    for path, text in {"shop/__init__.py": "", "shop/cart.py": CART, "shop/forms.py": FORMS, "shop/store.py": STORE,
                       "shop/params.py": PARAMS, "shop/session.py": SESSION, "shop/views.py": VIEWS}.items():
        shop.write(path, text)
    shop.commit("shop")
    web = RepoBuilder(root / "web")
    web.write("web/__init__.py", "").write("web/pages.py", PAGES).commit("web")
    home = Home.resolve(root / "home").create()
    notes = root / "notes.jsonl"
    notes.write_text("".join(json.dumps({"id": k, "content": c, "metadata": {"file_path": f} if f else {}}) + "\n"
                             for k, (c, f) in MEMORIES.items()))
    import_memories(home, notes, "jsonl")
    instance = DagsterInstance.ephemeral()
    keys = [register_local(home, r.path) for r in (shop, web)]
    instance.add_dynamic_partitions("repos", keys)
    for key in keys:  # the second run links every memory against both repositories
        assert materialize(ALL_ASSETS, partition_key=key, instance=instance,
                           resources=_resources(str(root / "home"))).success
    lake = Lake(home.root / "lake")
    out: dict[str, dict[str, float]] = {k: {} for k in MEMORIES}
    for rel in ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS"):
        for row in lake.read(rel, MEMORY_PARTITION, columns=["src", "dst", "relevance_score"]).to_pylist():
            kind, key, rest = row["dst"].split(":", 2)
            out[row["src"].removeprefix("mem:jsonl:")][f"{kind}:{key}:{rest}"] = row["relevance_score"]
    return out, dict(zip(("shop", "web"), keys))


def ids(links, name):
    found, keys = links
    short = {v: k for k, v in keys.items()}
    return {f"{i.split(':')[0]}:{short[i.split(':')[1]]}:{i.split(':', 2)[2]}" for i in found[name]}


def test_a_name_that_is_also_a_word_links_only_when_written_as_code(links):
    assert ids(links, "word-bare") == set()
    for how in ("word-call", "word-ticks", "word-noun"):
        assert ids(links, how) == {"fn:shop:shop/cart.py:retry"}, how


def test_a_capitalised_class_name_needs_no_more_than_the_word(links):
    assert ids(links, "class-word") == {"cls:shop:shop/session.py:Session"}


def test_an_overloaded_method_links_its_implementation_not_its_stubs(links):
    [impl] = ids(links, "overload")
    # the third definition, the one with a body, holds the plain id; the two stubs are `@L5` and `@L7`
    assert impl == "fn:shop:shop/store.py:Store.get_item"


def test_the_definition_in_the_memory_own_file_wins_over_the_others(links):
    assert ids(links, "own-file") == {"file:shop:shop/forms.py", "fn:shop:shop/forms.py:normalize_name"}


def test_a_method_name_means_the_class_the_memory_names(links):
    assert ids(links, "owner") == {"fn:shop:shop/params.py:Parameter.handle_parse_result",
                                   "fn:shop:shop/params.py:Parameter.consume_value"}


def test_bare_names_stay_in_the_repository_of_the_memory_file(links):
    assert ids(links, "home-file") == {"file:shop:shop/cart.py", "fn:shop:shop/views.py:render_page"}


def test_without_a_file_the_repository_most_names_resolve_in_is_the_memory_own(links):
    assert ids(links, "home-vote") == {"fn:web:web/pages.py:paginate_rows", "fn:web:web/pages.py:render_page"}


def test_a_qualified_name_reaches_another_repository(links):
    assert ids(links, "cross-qualified") == {"file:shop:shop/cart.py", "fn:shop:shop/cart.py:Cart.checkout_total",
                                             "fn:web:web/pages.py:render_page"}


def test_a_path_with_a_folder_in_the_text_links_the_file_a_bare_file_name_does_not(links):
    found, keys = links
    assert ids(links, "path") == {"file:shop:shop/cart.py"}
    assert found["path"][f"file:{keys['shop']}:shop/cart.py"] == 0.9


def test_a_possessive_reads_as_a_qualified_name(links):
    assert ids(links, "possessive") == {"fn:shop:shop/cart.py:Cart.checkout_total"}
