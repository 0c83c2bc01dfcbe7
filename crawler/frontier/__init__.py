"""The crawl's Redis store: keys, Lua scripts, the frontier, Bloom filter, ring and ledger.

Nothing here knows Scrapy's engine; the node (:mod:`crawler.node`) drives it, and everything
else reaches crawl-scoped state through :meth:`crawler.frontier.cluster.Cluster.of`.
"""
