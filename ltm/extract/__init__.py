"""Extraction: git history and code entities, streamed from one repository at a time."""
