"""Retrieval over both halves: five strategies, filters, RRF fusion, graph expansion, ranking.

`ltm.query.HybridLTM` is the entry point; `retrieve.retrieve` runs one of the strategies that
`strategies.TABLE` describes.
"""
