"""Distributed forum and blog crawler on Scrapy (the add-on: :mod:`crawler.addon`)."""

import os

# Scrapy's cookies middleware asks tldextract whether a cookie's domain is a public suffix, and
# tldextract downloads the Public Suffix List on first use (a traceback on a node without
# egress). tldextract's switches, read when Scrapy's cookies module imports it and builds its
# splitter (after this package is imported: settings, add-on): an empty list of URLs (its
# bundled snapshot) and an empty cache folder (no cache written). Values in the environment win.
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("TLDEXTRACT_CACHE", "")
