"""An online add's vector rows (`entry_rows`, pyarrow) are the rows a full sync writes (`vector_rows`)."""

from datetime import datetime, timezone

import numpy as np
import pyarrow as pa
import pytest

from ltm.errors import LtmError
from ltm.lake import Lake
from ltm.memory.records import MEMORY_PARTITION
from ltm.schema import lake_schema
from ltm.stages.embeddings import embeddings_table
from ltm.vectors import entry_rows, vector_rows

WHEN = datetime(2026, 11, 1, 12, 30, tzinfo=timezone.utc)


def _memories() -> pa.Table:
    rows = [
        {"id": "mem:online:a", "vector_id": "vec_0a", "repo": MEMORY_PARTITION, "memory_type": "semantic",
         "category": "debugging", "content": "retry backs off", "text": "retry backs off", "file_path": "app/util.py",
         "tags": ["net", "retry"], "importance": 0.7, "created_at": WHEN, "namespace": "team-a", "agent_id": "bot",
         "private": True, "expires_at": WHEN},
        {"id": "mem:online:b", "vector_id": "vec_0b", "repo": MEMORY_PARTITION, "memory_type": "episodic",
         "category": "architecture", "content": "no text", "text": None},
        {"id": "mem:online:c", "vector_id": None, "repo": MEMORY_PARTITION, "memory_type": "episodic",
         "category": "debugging", "content": "not embedded", "text": "not embedded"},
    ]
    return pa.Table.from_pylist(rows, schema=lake_schema("Memory"))


def _embeddings(vids):
    flat = np.arange(len(vids) * 4, dtype=np.float32) / 10
    return embeddings_table(vids, [f"h{i}" for i in range(len(vids))], "hash-4", 4, flat)


def test_an_online_add_writes_the_rows_a_sync_would(tmp_path):
    lake = Lake(tmp_path / "lake")
    memories, emb = _memories(), _embeddings(["vec_0b", "vec_0a"])
    with lake.write(MEMORY_PARTITION) as w:
        w.write("Memory", memories)
        w.write("embeddings", emb)
    synced = vector_rows(lake, MEMORY_PARTITION).sort_by("vector_id")
    online = entry_rows("Memory", memories, emb).sort_by("vector_id")
    assert online.schema == synced.schema
    assert online.to_pylist() == synced.to_pylist()
    first = online.to_pylist()[0]
    assert (first["tags"], first["namespace"], first["private"], first["file_path"]) == (["net", "retry"], "team-a", True, "app/util.py")
    assert online.to_pylist()[1]["content"] == "mem:online:b"  # no text: the id stands in, as in a sync


def test_a_memory_without_its_embedding_is_refused():
    with pytest.raises(LtmError, match="no embedding"):
        entry_rows("Memory", _memories(), _embeddings(["vec_0a"]))
