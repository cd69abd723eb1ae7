"""The pipeline's assets, one per stage, each over the `repos` dynamic partitions."""

from assets.bugs import bugs
from assets.code import code_entities
from assets.history import commits
from assets.memories import doc_memories, imported_memories, memory_links
from assets.stores import embeddings, graph, reconciliation, vectors

ALL_ASSETS = [
    commits, code_entities, bugs, doc_memories, embeddings, imported_memories, memory_links, graph, vectors,
    reconciliation,
]

__all__ = [
    "ALL_ASSETS", "bugs", "code_entities", "commits", "doc_memories", "embeddings", "graph", "imported_memories",
    "memory_links", "reconciliation", "vectors",
]
