"""scrapy-deltafetch 2.1.0 for Scrapy 2.19: its spider middleware is sync-only, which Scrapy
2.19 refuses; this subclass adds the async variant around the unchanged sync logic."""

from __future__ import annotations

from typing import Any

from scrapy_deltafetch import DeltaFetch


class AsyncDeltaFetch(DeltaFetch):
    async def process_spider_output_async(self, response: Any, result: Any, spider: Any = None):
        outputs = [out async for out in result]
        for out in super().process_spider_output(response, outputs, spider):
            yield out
