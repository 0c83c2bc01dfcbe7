"""A forum's web archive: WARC/1.1 files written while crawling, packaged as WACZ.

- :mod:`crawler.archive.records`: the records of one fetch, built byte-exact (warcio writes
  them; the digests and the HTTP header block are computed here, see below);
- :mod:`crawler.archive.writer`: gzipped WARC files per node, rolling at a size limit;
- :mod:`crawler.archive.index`: the crawl's digest index in Redis (revisit records);
- :mod:`crawler.archive.middleware`: the downloader middleware that captures every fetch
  (on when :setting:`CRAWLER_WARC_DIR` is set);
- :mod:`crawler.archive.wacz`: ``python -m crawler wacz`` (WACZ 1.1.1).
"""
