"""Which repository a memory is about: an online add (one memory) decides as the batch does."""

import polars as pl
import pytest

from ltm.memory.mentions import home_repos

REPOS = ["api", "web"]
OWN_SCHEMA = {"src": pl.String, "own_path": pl.String, "own_repo": pl.String, "from_metadata": pl.Boolean}


def _hits(rows):
    return pl.DataFrame(rows, schema={"src": pl.String, "repo": pl.String, "key": pl.String, "base": pl.Float64},
                        orient="row")


def _memories(project=None):
    # the second memory has no hits: it only makes `home_repos` take its frame path
    return pl.DataFrame({"id": ["m", "other"], "project_id": [project, None]}, schema={"id": pl.String, "project_id": pl.String})


CASES = {
    "project wins": (_hits([("m", "web", "Cart", 0.8), ("m", "web", "render", 0.8)]), "api", [], "api"),
    "project not ingested: the votes": (_hits([("m", "web", "Cart", 0.8)]), "elsewhere", [], "web"),
    "metadata file wins over votes": (_hits([("m", "web", "Cart", 0.8), ("m", "web", "x", 0.8)]), None,
                                      [("m", "a.py", "api", True)], "api"),
    "a path in the text does not decide": (_hits([("m", "web", "Cart", 0.8)]), None, [("m", "a.py", "api", False)], "web"),
    "two metadata repositories say nothing": (_hits([("m", "web", "Cart", 0.8)]), None,
                                              [("m", "a.py", "api", True), ("m", "b.py", "web", True)], "web"),
    "a tie says nothing": (_hits([("m", "web", "Cart", 0.8), ("m", "api", "Cart", 0.8)]), None, [], None),
    "a qualified name counts twice": (_hits([("m", "web", "Cart", 0.8), ("m", "web", "ship", 0.8),
                                             ("m", "api", "Cart.total", 0.9)]), None, [], None),
    "one name counts once per repository": (_hits([("m", "web", "Cart", 0.8), ("m", "web", "Cart", 0.9),
                                                   ("m", "api", "ship", 0.8)]), None, [], "web"),
    "no hits, no project": (_hits([]), None, [], None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_memory_gets_the_repository_the_batch_gives(case):
    hits, project, own, expected = CASES[case]
    own = pl.DataFrame(own, schema=OWN_SCHEMA, orient="row")
    batch = home_repos(hits, _memories(project), own, REPOS, 0.9).filter(pl.col("src") == "m")
    alone = home_repos(hits, _memories(project).head(1), own, REPOS, 0.9)
    assert batch["home"].to_list() == ([expected] if expected else [])
    assert alone["home"].to_list() == batch["home"].to_list()
