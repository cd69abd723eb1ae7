"""A query's first hits do not depend on how many hits it asks for."""

import pytest

from ltm.home import Home
from ltm.query import HybridLTM
from ltm.retrieval.strategies import STRATEGIES
from tests.builder import RepoBuilder
from tests.retrieval.fixture import ingest

VERBS = ["build", "load", "parse", "write", "read", "check", "copy", "merge", "open", "close", "send", "fetch"]
NOUNS = ["graph", "lake", "table", "vector", "cache", "index", "query", "commit", "file", "batch"]


def _module(verb: str) -> str:
    """Functions whose names and bodies share words across modules, so every ranking runs deep."""
    out = [f'"""{verb.title()} the stores: graph, lake, table and vector helpers."""\n']
    for noun in NOUNS:
        out.append(f'''

def {verb}_{noun}(source, target):
    """{verb.title()} the {noun} from the lake into the graph, then check the {noun} table."""
    rows = read_rows(source, "{noun}")
    return write_rows(target, "{noun}", rows)
''')
    return "".join(out)


@pytest.fixture(scope="module")
def deep_home(tmp_path_factory) -> Home:
    root = tmp_path_factory.mktemp("topk")
    b = RepoBuilder(root / "stores")
    for verb in VERBS:
        b.write(f"stores/{verb}.py", _module(verb))
    b.commit("Add the store helpers")
    for i, verb in enumerate(VERBS):
        b.write(f"stores/{verb}.py", _module(verb) + f"\n\nLIMIT_{i} = {i}\n")
        b.commit(f"Fix the {verb} limit for the graph build from the lake")
    home = Home(root / "home")
    ingest(home, b.path, extra=False)
    return home


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_first_hits_are_the_same_for_any_top_k(deep_home, strategy):
    questions = ["how is the graph built from the lake", "where is the vector table merged",
                 "which commit fixed the graph build limit"]
    with HybridLTM(deep_home) as ltm:
        for q in questions:
            ranked = {k: [h["graph_entity_id"] for h in ltm.query(q, strategy=strategy, top_k=k)] for k in (3, 10, 30)}
            assert len(ranked[30]) > 10, (strategy, q)
            assert ranked[3] == ranked[30][:3], (strategy, q)
            assert ranked[10] == ranked[30][:10], (strategy, q)
