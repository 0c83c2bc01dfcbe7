"""The feed seams of :mod:`crawler.feeds` on their own: what a synced feed file holds before
the feed ends (as a kill would leave it), and the add-on putting them in place."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import zlib
from typing import TYPE_CHECKING

import pytest
from scrapy import Spider
from scrapy.exporters import JsonLinesItemExporter
from scrapy.extensions.postprocessing import PostProcessingManager
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from crawler.addon import ClusterAddon
from crawler.feeds import DurableFileFeedStorage, FeedFiles

if TYPE_CHECKING:
    from pathlib import Path


def _gunzip(data: bytes) -> bytes:
    return zlib.decompressobj(wbits=31).decompress(data)


@pytest.mark.parametrize(("plugin", "read"), [
    ("scrapy.extensions.postprocessing.GzipPlugin", _gunzip),
    ("scrapy.extensions.postprocessing.Bz2Plugin", bz2.decompress),
    ("scrapy.extensions.postprocessing.LZMAPlugin", lzma.decompress),
])
def test_a_synced_compressed_feed_holds_every_item_before_its_end(
        tmp_path: Path, plugin: str, read) -> None:
    settings = Settings({"FEEDS": {str(tmp_path / "items.out"): {
        "format": "jsonlines", "postprocessing": [plugin]}}})
    ClusterAddon().update_settings(settings)  # Scrapy's plugin, swapped for its durable form
    options = settings.getdict("FEEDS")[str(tmp_path / "items.out")]
    crawler = get_crawler(Spider)
    storage = DurableFileFeedStorage.from_crawler(crawler, str(tmp_path / "items.out"),
                                                  feed_options=options)
    file = storage.open(Spider("s"))
    exporter = JsonLinesItemExporter(PostProcessingManager(options["postprocessing"], file,
                                                           options))
    feeds = FeedFiles.of(crawler)
    for batch in range(3):  # a flush per ack batch: bzip2 and xz start a stream each time
        for i in range(50):
            exporter.export_item({"url": f"http://a/{batch}/{i}"})
        assert feeds.sync()
        # what a kill would leave now (the feed's end never written) reads in full
        urls = [json.loads(line)["url"] for line in read((tmp_path / "items.out").read_bytes())
                .splitlines()]
        assert len(urls) == 50 * (batch + 1)
    assert file.durable_size == (tmp_path / "items.out").stat().st_size


def test_the_addon_makes_file_and_stdout_feeds_durable_and_leaves_a_projects_storage() -> None:
    settings = Settings({"FEED_STORAGES": {"s3": "my.S3Storage"}})
    ClusterAddon().update_settings(settings)
    storages = settings.getwithbase("FEED_STORAGES")
    assert storages["file"] == storages[""] == "crawler.feeds.DurableFileFeedStorage"
    assert storages["stdout"] == "crawler.feeds.DurableStdoutFeedStorage"
    assert storages["s3"] == "my.S3Storage"


def test_a_plugin_that_cannot_be_flushed_is_named_when_the_feed_opens(caplog) -> None:
    DurableFileFeedStorage("items.jl.zst", feed_options={
        "postprocessing": ["tests.faults.test_feed_plugins.Unflushable"]})
    assert "Unflushable cannot be flushed" in caplog.text


class Unflushable:
    def __init__(self, file, feed_options) -> None:
        self.file = file

    def write(self, data: bytes) -> int:
        return self.file.write(data)

    def close(self) -> None:
        pass


def test_what_a_killed_run_left_after_its_last_whole_item_goes_before_a_resumed_run(tmp_path):
    from crawler.feed_tail import adopt_tail

    plain = tmp_path / "items.jl"
    plain.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a"')
    adopt_tail(str(plain), "items.jl", {"format": "jsonlines"})
    assert plain.read_bytes() == b'{"a": 1}\n{"a": 2}\n'
    plain.write_bytes(b'{"a": 1}\n{"a": 2}')  # whole, without its newline: kept
    adopt_tail(str(plain), "items.jl", {"format": "jsonlines"})
    assert plain.read_bytes() == b'{"a": 1}\n{"a": 2}\n'
    # gzip: a whole member, then one flushed with Z_SYNC_FLUSH at each barrier and never ended
    sync = zlib.compressobj(wbits=31)
    unended = b"".join([sync.compress(b'{"a": 1}\n'), sync.flush(zlib.Z_SYNC_FLUSH),
                        sync.compress(b'{"a": 2'), sync.flush(zlib.Z_SYNC_FLUSH)])
    packed = tmp_path / "items.jl.gz"
    packed.write_bytes(gzip.compress(b'{"a": 0}\n') + unended)
    adopt_tail(str(packed), "items.jl.gz", {"format": "jsonlines", "postprocessing": [
        "scrapy.extensions.postprocessing.GzipPlugin"]})
    with packed.open("ab") as resumed:
        resumed.write(gzip.compress(b'{"a": 3}\n'))
    assert gzip.decompress(packed.read_bytes()) == b'{"a": 0}\n{"a": 1}\n{"a": 3}\n'
    # bz2: a stream per barrier; the last one cut
    packed = tmp_path / "items.jl.bz2"
    packed.write_bytes(bz2.compress(b'{"a": 1}\n') + bz2.compress(b'{"a": 2}\n' * 50)[:30])
    adopt_tail(str(packed), "items.jl.bz2", {"format": "jsonlines", "postprocessing": [
        "crawler.feeds.Bz2Plugin"]})
    assert bz2.decompress(packed.read_bytes()) == b'{"a": 1}\n'
