"""The extraction stages: one module per stage, each a function that reads one repository, writes
its lake partitions and returns a typed result with the asset's `metadata()` and a `summary()` line.

The Dagster assets are thin wrappers around these; the CLI reaches them through the assets.
"""
