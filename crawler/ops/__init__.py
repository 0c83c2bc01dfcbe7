"""Operating a crawl: the ``python -m crawler`` commands, progress, health, metrics, the item
sink."""
