"""Several runs over the same input give the same lake, graph and vectors, by content hash.

What legitimately differs between runs, and is not hashed: graph build ids (`graph/CURRENT`),
Parquet file names and Dagster run ids. Everything a reader can query is compared, within one
home including when each memory link was made (`linked_at`: a link that survives keeps its time).
A fresh home made its links at another time, so that one column is left out against it.
"""

from __future__ import annotations

import json
import shutil

from ltm.lake import Lake
from tests.reliability.harness import assert_reconciled, leftovers, ltm, snapshot

NOTES = [  # memories that link to a file, a function and a class of the sample repository
    {"id": "n1", "content": "refactored the validation in validate_token", "metadata": {"file_path": "app/auth.py"}},
    {"id": "n2", "content": "the Validator class keeps the secret; retry must back off"},
]


def test_three_runs_and_a_fresh_home_hold_identical_contents(repo, tmp_path):
    notes = tmp_path / "notes.jsonl"
    notes.write_text("".join(json.dumps(n) + "\n" for n in NOTES))
    home, fresh = tmp_path / "home", tmp_path / "fresh"
    for h in (home, fresh):
        ltm("memory", "import", notes, "--home", h)
    hashes = []
    for _ in range(3):
        shutil.rmtree(home / "state", ignore_errors=True)  # forget the last run, so the stages run again
        ltm("ingest", repo.path, "--home", home, "--embedder", "hash")
        hashes.append(snapshot(home))
        assert_reconciled(home)
    assert hashes[0] == hashes[1] == hashes[2]
    ltm("ingest", repo.path, "--home", fresh, "--embedder", "hash")
    assert snapshot(home, link_times=False) == snapshot(fresh, link_times=False)
    # the runs really wrote something: every store holds rows, memory links of every kind included
    assert len(set(hashes[0].values())) > 10
    lake = Lake(home / "lake")
    links = {rel: lake.read(rel).num_rows for rel in ("RELATES_TO_FILE", "RELATES_TO_FUNCTION", "RELATES_TO_CLASS")}
    assert all(links.values()), links
    # the link times are those of the first run, not of the fresh home made after it
    first = {r["dst"]: r["linked_at"] for r in lake.read("RELATES_TO_FUNCTION").to_pylist()}
    later = {r["dst"]: r["linked_at"] for r in Lake(fresh / "lake").read("RELATES_TO_FUNCTION").to_pylist()}
    assert first.keys() == later.keys() and all(first[k] < later[k] for k in first)
    # the lake was the same each time, so the first graph build was kept; no staging is left
    assert len(list((home / "graph" / "builds").glob("*.kuzu"))) == 1
    assert leftovers(home) == []
