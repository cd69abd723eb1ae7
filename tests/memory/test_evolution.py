"""Memory evolution as a pure function of hand-written memories: duplicates link, updates and
contradictions supersede, look-alikes stay apart, chains record the value's transitions."""

from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl

from ltm.embed.hashing import HashEmbedder
from ltm.memory.evolution import evolve
from ltm.memory.evolution_pass import near_best

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)


def _memories(rows):
    """(id, content, days after T0) -> the frame `evolve` reads, with hash-embedder vectors."""
    vecs = HashEmbedder(256).embed([c for _, c, _ in rows])
    return pl.DataFrame({
        "id": [i for i, _, _ in rows], "content": [c for _, c, _ in rows],
        "created_at": [T0 + timedelta(days=d) for _, _, d in rows],
        "vector": [v.tolist() for v in vecs],
    })


def _pairs(df, *cols):
    return {tuple(r) for r in df.select("src", "dst", *cols).iter_rows()}


def test_duplicate_links_without_superseding():
    ev = evolve(_memories([
        ("a", "The HTTP client timeout is 30 seconds", 0),
        ("b", "the HTTP client timeout is 30 seconds.", 5),
    ]))
    assert _pairs(ev.similar, "contradicts") == {("b", "a", False)}
    assert ev.supersedes.height == 0


def test_update_supersedes_and_records_the_transition():
    ev = evolve(_memories([
        ("v1", "The HTTP client timeout is 30 seconds", 0),
        ("v2", "The HTTP client timeout is now 60 seconds", 10),
        ("v3", "The HTTP client timeout is now 90 seconds", 20),
    ]))
    assert _pairs(ev.supersedes) == {("v2", "v1"), ("v3", "v2"), ("v3", "v1")}  # every older version
    row = ev.supersedes.filter(pl.col("src") == "v2").row(0, named=True)
    assert row["temporal_delta"] == 10 * 86400 and "30 -> 60" in row["reason"]
    # the chain: direct steps only, not v1 -> v3
    assert _pairs(ev.transitions, "from_value", "to_value", "turn") == {("v1", "v2", "30", "60", 1), ("v2", "v3", "60", "90", 2)}


def test_contradiction_by_negation_supersedes():
    ev = evolve(_memories([
        ("old", "We deploy the billing service on Fridays", 0),
        ("new", "We no longer deploy the billing service on Fridays", 3),
    ]))
    assert _pairs(ev.supersedes) == {("new", "old")}
    assert _pairs(ev.similar, "contradicts") == {("new", "old", True)}


def test_unrelated_look_alike_does_not_link():
    ev = evolve(_memories([
        ("http", "The HTTP client timeout is 30 seconds", 0),
        ("db", "The database pool timeout is 45 seconds", 4),
    ]))
    assert ev.similar.height == 0 and ev.supersedes.height == 0


def test_a_duplicate_of_the_old_value_is_superseded_too():
    ev = evolve(_memories([
        ("a", "Releases are cut from the main branch", 0),
        ("b", "Releases are cut from the main branch", 1),
        ("c", "Releases are now cut from the release branch instead of main", 9),
    ]))
    assert {("c", "a"), ("c", "b")} <= _pairs(ev.supersedes)
    assert ("b", "a") not in _pairs(ev.supersedes)


def test_shared_linked_code_makes_a_candidate_the_vectors_alone_would_miss():
    rows = [("x", "validate_token rejects expired tokens", 0), ("y", "validate_token no longer rejects expired tokens", 2)]
    mem = _memories(rows)
    links = pl.DataFrame({"src": ["x", "y"], "dst": ["fn:r:a.py:validate_token"] * 2})
    assert _pairs(evolve(mem, links).supersedes) == {("y", "x")}


def test_a_look_alike_loses_to_the_memorys_own_other_version():
    # 0 and 1: one fact (cosine 0.9); 2: a look-alike of another subject, 0.65 from 1 and 0.62 from 0
    ij = np.array([[0, 1], [1, 2], [0, 2]], dtype=np.int32)
    cos = np.array([0.9, 0.65, 0.62], dtype=np.float32)
    assert near_best(3, ij, cos, 0.2).tolist() == [True, False, False]
    # with no other version of its fact, a memory keeps its closest look-alike
    assert near_best(3, ij[1:2], cos[1:2], 0.2).tolist() == [True]
