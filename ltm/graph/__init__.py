"""The Kuzu graph: one adapter, blue/green builds from the lake, and the read-only view of a build."""
