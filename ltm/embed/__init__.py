"""Embedding providers behind one interface (`base`), chosen in one place (`registry`), and the cache."""
