"""The pipeline's assets, one per stage, each over the `repos` dynamic partitions."""

from assets.bugs import bugs
from assets.code import code_entities
from assets.history import commits
from assets.stores import embeddings, graph, reconciliation, vectors

ALL_ASSETS = [commits, code_entities, bugs, embeddings, graph, vectors, reconciliation]

__all__ = ["ALL_ASSETS", "bugs", "code_entities", "commits", "embeddings", "graph", "reconciliation", "vectors"]
