"""The node: the runtime that drives the Redis store (:mod:`crawler.frontier`) from Scrapy.

Its Scrapy adapters are the scheduler (:mod:`crawler.node.scheduler`), the dupefilter and the
lease middlewares; its parts (exchange, leases, politeness, outcomes, ...) talk through methods.
"""
