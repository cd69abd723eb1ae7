"""The pipeline's assets, one per stage: the extraction over the `repos` dynamic partitions, the
home-wide stores (memories, links, graph, vectors, reconciliation) unpartitioned."""

from assets.bugs import bugs
from assets.code import code_entities
from assets.history import commits
from assets.maintenance import maintenance
from assets.memories import doc_memories, imported_memories, memory_links
from assets.repository import repository
from assets.stores import embeddings, graph, reconciliation, vectors

ALL_ASSETS = [
    repository, commits, code_entities, bugs, doc_memories, embeddings, imported_memories, memory_links, graph,
    vectors, reconciliation,
]

# One repository's work, partitioned by repository.
EXTRACT_ASSETS = [repository, commits, code_entities, bugs, doc_memories, embeddings]
# The whole home's, not partitioned: built once per batch of repositories.
HOME_ASSETS = [imported_memories, memory_links, graph, vectors, reconciliation]

# Not partitioned, outside the ingest job: its own job and schedule.
MAINTENANCE_ASSETS = [maintenance]

__all__ = [
    "ALL_ASSETS", "EXTRACT_ASSETS", "HOME_ASSETS", "MAINTENANCE_ASSETS", "bugs", "code_entities", "commits", "doc_memories", "embeddings", "graph",
    "imported_memories", "maintenance", "memory_links", "reconciliation", "repository", "vectors",
]
