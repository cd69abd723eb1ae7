"""The history pipeline: every commit of a branch, its file changes and the entities each touched."""
