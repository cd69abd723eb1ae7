"""The nearest stored memories an online add is judged against, read from the lake in this process."""

import numpy as np

from ltm.lake import Lake
from ltm.memory.neighbours import NEIGHBOURS, StoredMemories
from ltm.memory.records import MEMORY_PARTITION, memory_row
from ltm.stages.embeddings import embeddings_table

DIM = 8


def _store(lake: Lake, rows: list[tuple[str, str, np.ndarray, dict | None]], append: bool) -> None:
    """Memories (id, content, vector, conversation) into the lake's memories partition, one commit."""
    mems = [memory_row("t", i, c, metadata={"created_at": "2024-01-01T00:00:00Z",
                                            **({"conversation": conv} if conv else {})}) for i, c, _, conv in rows]
    emb = embeddings_table([m["vector_id"] for m in mems], [m["id"] for m in mems], "m", DIM,
                           np.concatenate([v for _, _, v, _ in rows]).astype(np.float32))
    with lake.write(MEMORY_PARTITION) as w:
        if append:
            w.append("embeddings", emb)
            w.append("Memory", mems)
        else:
            w.write("embeddings", emb)
            w.write("Memory", mems)


def test_nearest_are_the_exact_nearest_by_cosine_and_follow_new_part_files(tmp_path):
    rng = np.random.default_rng(7)
    lake = Lake(tmp_path / "lake")
    vectors = rng.standard_normal((40, DIM))
    _store(lake, [(f"m{i}", f"memory {i}", vectors[i], None) for i in range(40)], append=False)
    stored = StoredMemories(lake)
    q = rng.standard_normal(DIM)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cos = unit @ (q / np.linalg.norm(q))
    expected = [f"mem:t:m{i}" for i in np.argsort(-cos) if f"m{i}" != "m3"][:NEIGHBOURS]

    got = stored.nearest(q, exclude={"mem:t:m3"}, min_cosine=-1.0)
    assert [n.id for n in got] == expected  # brute force over every stored vector, m3 left out
    assert [round(n.cosine, 5) for n in got] == sorted((round(n.cosine, 5) for n in got), reverse=True)
    assert got[0].content == f"memory {expected[0].split('m')[-1]}"
    assert all(n.cosine >= 0.5 for n in stored.nearest(q, set(), min_cosine=0.5))

    # an add's part file is seen by the next search of the same (warm) reader; a conversation turn never
    _store(lake, [("close", "right beside the question", q * 3, None),
                  ("turn", "a conversation turn beside it too", q * 2, {"id": "c1", "turn": 1})], append=True)
    after = stored.nearest(q, set(), min_cosine=-1.0)
    assert after[0].id == "mem:t:close" and after[0].cosine > 0.999
    assert "mem:t:turn" not in [n.id for n in after]
