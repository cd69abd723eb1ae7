"""Retrieval over both halves: five strategies, filters, RRF fusion, graph expansion, ranking.

`ltm.query.HybridLTM` is the entry point; `strategies.retrieve` does the work.
"""
