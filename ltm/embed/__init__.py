"""Embedding providers behind one interface, and the persistent embedding cache."""

from ltm.embed.providers import Embedder, HashEmbedder, LocalEmbedder, Usage, make_embedder

__all__ = ["Embedder", "HashEmbedder", "LocalEmbedder", "Usage", "make_embedder"]
