"""The pipeline's assets, one per stage, each over the `repos` dynamic partitions."""

from assets.code import code_entities
from assets.history import commits
from assets.stores import embeddings, graph, reconciliation, vectors

ALL_ASSETS = [commits, code_entities, embeddings, graph, vectors, reconciliation]

__all__ = ["ALL_ASSETS", "code_entities", "commits", "embeddings", "graph", "reconciliation", "vectors"]
