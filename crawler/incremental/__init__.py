"""Incremental re-crawl as Scrapy components: conditional GET, changed-row refetch, deep
revisits, new items.

Spiders opt in through request meta (the forum and blog spiders do):

- ``meta["revisit"] = True`` on a *listing* page (forum index, board, thread list; blog
  index, feed, sitemap). :mod:`.listings` keeps it for revisits with its validators,
  sends ``If-None-Match`` / ``If-Modified-Since`` when it comes back, and a ``304`` (or a
  ``200`` with the same body) is not parsed: stats ``revisit/not_modified``,
  ``revisit/unchanged``, ``revisit/changed``.
- ``meta["revisit_row"] = [key, digest]`` on a request a listing links to (a thread, an
  article), *digest* summing up what the listing says about it (reply count, last post;
  ``lastmod``). On a revisit pass :mod:`.rows` lets a new key through, and a changed one
  is fetched again from its last known page (``dont_filter``); an unchanged one goes on
  to the frontier, whose Bloom filter drops it as seen. A change is settled only when its
  fetch succeeds: a row's request that failed (an error status or a download error) is
  kept as a revisit, due in the next pass (watch mode: after its interval), until it is
  read (a 200 whose callback ran).
- A listing request can carry a ``revisit_row`` too (a board on the forum index, with its
  row: topics, posts, last post). It is then not revisited on every pass, only when the
  listing linking to it says something new of it, as for a thread.
- ``meta["revisit_key"] = key`` on every page of that item: the last one fetched is its
  last known page.
- **Deep revisits**: an edit changes no row, so each thread or article's first request
  is kept too, and read again in full, all its pages, at least every
  :setting:`CRAWLER_REVISIT_DEEP_PASSES` passes or :setting:`CRAWLER_REVISIT_DEEP_DAYS`
  days, a share of them in each pass (:mod:`crawler.node.deep`); its pages carry
  :data:`DEEP` and pass the Bloom filter.

:mod:`.items` emits on a revisit pass only new items and edited ones (their digest
changed), the latter as dicts with a ``revision`` field (docs/items.md).

All state is kept by :class:`crawler.node.revisit.Revisits` (the frontier's Redis),
the node's revisit state (:func:`crawler.node.node.node_of`); without the frontier
scheduler these components do nothing. This module holds the vocabulary of the meta
keys, shared by the spiders and the components.
"""

from __future__ import annotations

from typing import Any

from crawler.node.deep import DEEP
from crawler.node.revisit import digest

#: The meta of a listing request: revisited with conditional GET.
LISTING: dict[str, Any] = {"revisit": True}

#: Meta key of a listing request: the names of the meta keys its spider gave it, kept
#: with its revisits (a callback that reads ``response.meta["home"]`` finds it again).
SPIDER_META = "revisit_meta"
#: Meta key of a row's request that failed: kept as a revisit until it is read.
FAILED_ROW = "revisit_failed"
#: Meta keys set on the way out by other components, not by the spider.
NOT_SPIDERS = frozenset({"revisit", "revisit_row", "revisit_key", "revisit_unchanged",
                         FAILED_ROW, DEEP, SPIDER_META, "depth", "handle_httpstatus_list"})


def row_meta(key: str, said: str | None) -> dict[str, Any]:
    """The meta of a request a listing links to, from what the listing says of it (*said*:
    its row, dates, comment count): on a revisit it is fetched again when that changed."""
    if not said:
        return {}
    return {"revisit_row": [key, digest(said).hex()]}
