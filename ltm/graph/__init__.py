"""The Kuzu graph: one adapter, blue/green builds from the lake, read-only readers."""
