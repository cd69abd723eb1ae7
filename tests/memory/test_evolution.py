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


def _close(rows, cosine=0.8):
    """(id, content, days after T0) -> the frame `evolve` reads and vectors `cosine` apart from the
    first: the rules alone decide what links."""
    v = np.array([[1.0, 0.0]] + [[cosine, (1 - cosine ** 2) ** 0.5]] * (len(rows) - 1), dtype=np.float32)
    frame = pl.DataFrame({"id": [i for i, _, _ in rows], "content": [c for _, c, _ in rows],
                          "created_at": [T0 + timedelta(days=d) for _, _, d in rows]})
    return frame, v


def test_a_code_at_the_head_names_another_subject_not_another_value():
    # Sev1 / Sev2 look like values (letters and digits); before a shared noun they qualify it
    ev = evolve(_memories([
        ("sev1", "Sev1 incidents page the on-call engineer within 5 minutes.", 0),
        ("sev2", "Sev2 incidents page the on-call engineer within 30 minutes.", 2),
        ("sev2b", "Sev2 incidents now page the on-call engineer within 60 minutes.", 40),
    ]))
    assert _pairs(ev.supersedes) == {("sev2b", "sev2")}
    assert not {p for p in _pairs(ev.similar) if "sev1" in p}


def test_a_name_at_the_head_names_another_subject():
    frame, v = _close([
        ("ios", "The iOS app supports iOS 15 and later.", 0),
        ("android", "The Android app supports Android 8 and later.", 3),
    ], 0.9)
    ev = evolve(frame, vectors=v)
    assert ev.similar.height == 0 and ev.supersedes.height == 0


def test_an_acronym_that_spells_a_stop_word_still_names_the_subject():
    # "US" is not the pronoun "us": EU and US customers' data are two subjects
    frame, v = _close([
        ("eu", "EU customers' data is hosted in eu-west-1.", 0),
        ("us", "US customers' data is hosted in us-east-1.", 2),
    ], 0.9)
    assert evolve(frame, vectors=v).supersedes.height == 0


def test_a_number_in_words_is_a_value_that_changes():
    ev = evolve(_memories([
        ("two", "Pull requests to main need two approvals.", 0),
        ("one", "Pull requests to main need only one approval now.", 30),
    ]))
    assert _pairs(ev.supersedes) == {("one", "two")}
    assert _pairs(ev.transitions, "from_value", "to_value") == {("two", "one", "2", "1")}


def test_an_update_that_names_the_value_it_left_supersedes_in_other_words():
    # no shared verb ("owns" / "took over"), but the newer one says whom it took over from
    frame, v = _close([
        ("maria", "Maria owns the payments service.", 0),
        ("priya", "Priya took over the payments service from Maria.", 40),
        ("flake8", "Python code is linted with flake8 in CI.", 1),
        ("ruff", "CI lints Python code with ruff instead of flake8.", 50),
    ])
    ev = evolve(frame.slice(0, 2), vectors=v[:2])
    assert _pairs(ev.supersedes, "reason") == {("priya", "maria", "left: maria")}
    ev = evolve(frame.slice(2, 2), vectors=v[:2])
    assert _pairs(ev.supersedes) == {("ruff", "flake8")}


def test_a_far_update_that_names_the_value_it_left_still_supersedes():
    # two copies of the old value are 0.95 alike; the update in other words is 0.7 from each, more
    # than NEAR_BEST below: judged all the same, since it says which value it left
    rows = [("a", "The billing service stores invoices in Postgres.", 0),
            ("b", "The billing service stores its invoices in Postgres.", 3),
            ("c", "Billing moved its invoices from Postgres to CockroachDB last sprint.", 40)]
    v = np.array([[1.0, 0.0, 0.0], [0.95, 0.312, 0.0], [0.7, 0.112, 0.705]], dtype=np.float32)
    frame = pl.DataFrame({"id": [r[0] for r in rows], "content": [r[1] for r in rows],
                          "created_at": [T0 + timedelta(days=r[2]) for r in rows]})
    ev = evolve(frame, vectors=v)
    assert _pairs(ev.supersedes) == {("c", "a"), ("c", "b")}
    # said without naming the old value, an update that far is still left to the closer versions
    frame = frame.with_columns(pl.Series("content", [rows[0][1], rows[1][1], "Billing now keeps invoices in CockroachDB."]))
    assert evolve(frame, vectors=v).supersedes.height == 0


def test_a_short_plural_is_the_same_word():
    # "jobs" and "job" are one subject word: without it the two share too little to be one subject
    frame, v = _close([
        ("rabbit", "Background workers consume jobs from RabbitMQ.", 0),
        ("redis", "Workers switched from RabbitMQ to Redis streams for the job queue.", 30),
    ])
    assert _pairs(evolve(frame, vectors=v).supersedes) == {("redis", "rabbit")}


def test_a_changed_source_after_from_is_an_update_not_another_subject():
    ev = evolve(_memories([
        ("main", "Production deploys go out from the main branch.", 0),
        ("release", "Production deploys go out from the release branch.", 30),
    ]))
    assert _pairs(ev.supersedes, "reason") == {("release", "main", "source changed: main -> releas")}


def test_a_restatement_of_an_update_does_not_supersede_it():
    # "from Maria" is what the update left, not a value it holds: a later "owned by Priya" says
    # the same as the update, so it is similar to it and supersedes nothing
    frame, v = _close([
        ("priya", "Priya took over the payments service from Maria.", 0),
        ("owned", "The payments service is owned by Priya.", 30),
    ])
    ev = evolve(frame, vectors=v)
    assert _pairs(ev.similar) == {("owned", "priya")}
    assert _pairs(ev.supersedes) == set()


def test_a_qualifier_after_a_changed_number_names_another_subject():
    # "frontend" / "backend" sit between the number and the noun both go on with: two subjects,
    # not one sample rate that changed; the words before a number ("runs" / "scaled to") are not
    frame, v = _close([
        ("backend", "Sentry traces 25% of backend transactions for performance monitoring.", 0),
        ("frontend", "Sentry traces 10% of frontend transactions for performance monitoring.", 20),
    ], cosine=0.95)
    assert _pairs(evolve(frame, vectors=v).similar) == set()
    frame, v = _close([("three", "The API runs 3 replicas in production.", 0),
                       ("six", "The API was scaled to 6 replicas in production.", 20)], cosine=0.95)
    assert _pairs(evolve(frame, vectors=v).supersedes) == {("six", "three")}
