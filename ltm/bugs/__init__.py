"""Bugs: fix evidence, issue exports, SZZ and defect signals."""
