"""The members of a class a memory speaks of without naming them as code (#17 item 6, recall): one
real repository, memories imported and linked by the real ingest, links read as a user sees them."""

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

CONFIG = '''import os


class Config:
    def __init__(self, env_file=None, env_prefix=""):
        self.env_prefix = env_prefix
        self.file_values = {}

    def get(self, key, default=None):
        """Look the key up in the environment first, then in the file's values."""
        key = self.env_prefix + key
        if key in os.environ:
            return os.environ[key]
        return self.file_values.get(key, default)

    def reload(self):
        self.file_values = {}
'''
CACHE = '''import threading


class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self._lock = threading.Lock()

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def copy(self):
        return LRUCache(self.capacity)


class Macro:
    def __call__(self, *args):
        return args

    def __getattr__(self, name):
        return self
'''

MEMORIES = {
    "described": "Config looks a key up in the environment first and in the file second; env_prefix is "
                 "prepended to every key.",
    "described-nothing": "Config is built once at start-up and shared by every request.",
    "dunder-bare": "Macro returns itself from __getattr__, so a missing attribute renders empty.",
    "noun": "LRUCache rebuilds its lock in __setstate__; its copy method keeps the capacity.",
    "word": "LRUCache keeps a copy of nothing: each entry is stored once.",
    "dunder-qualified": "Macro.__call__ binds positional arguments and returns them as a tuple.",
}


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    """memory id -> {linked entity id without the repository key: its relevance_score}."""
    root = tmp_path_factory.mktemp("members")
    repo = RepoBuilder(root / "app")
    for path, text in {"app/__init__.py": "", "app/config.py": CONFIG, "app/cache.py": CACHE}.items():
        repo.write(path, text)
    repo.commit("app")
    home = Home.resolve(root / "home").create()
    notes = root / "notes.jsonl"
    notes.write_text("".join(json.dumps({"id": k, "content": c}) + "\n" for k, c in MEMORIES.items()))
    import_memories(home, notes, "jsonl")
    instance = DagsterInstance.ephemeral()
    key = register_local(home, repo.path)
    instance.add_dynamic_partitions("repos", [key])
    assert materialize(ALL_ASSETS, partition_key=key, instance=instance,
                       resources=_resources(str(root / "home"))).success
    out: dict[str, dict[str, float]] = {k: {} for k in MEMORIES}
    for rel in ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS"):
        for row in Lake(home.root / "lake").read(rel, MEMORY_PARTITION, columns=["src", "dst", "relevance_score"]).to_pylist():
            kind, _, rest = row["dst"].split(":", 2)
            out[row["src"].removeprefix("mem:jsonl:")][f"{kind}:{rest}"] = row["relevance_score"]
    return out


def test_a_named_class_links_the_method_its_text_describes_below_a_named_mention(links):
    assert links["described"] == {"cls:app/config.py:Config": 0.8, "fn:app/config.py:Config.get": 0.6}
    # no code of a member in the text: the class alone
    assert links["described-nothing"] == {"cls:app/config.py:Config": 0.8}


def test_a_dunder_written_bare_beside_its_class_links_that_class_method(links):
    assert links["dunder-bare"] == {"cls:app/cache.py:Macro": 0.8, "fn:app/cache.py:Macro.__getattr__": 0.7}


def test_a_stop_listed_method_name_links_beside_its_class_only_when_written_as_code(links):
    assert links["noun"] == {"cls:app/cache.py:LRUCache": 0.8, "fn:app/cache.py:LRUCache.__setstate__": 0.7,
                             "fn:app/cache.py:LRUCache.copy": 0.7}
    assert links["word"] == {"cls:app/cache.py:LRUCache": 0.8}


def test_a_dunder_method_named_with_its_class_links_the_class_too(links):
    assert links["dunder-qualified"] == {"fn:app/cache.py:Macro.__call__": 0.9, "cls:app/cache.py:Macro": 0.7}
