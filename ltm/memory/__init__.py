"""Agent memories: sources, the lake partition, auto-linking, the backfill and online adds."""
