"""The graph (Kuzu or LadybugDB): one adapter, blue/green builds from the lake, and the read-only view of a build."""
