"""Blog readers: pure extraction over responses, used by the ``wordpress`` and ``blog`` spiders.

* :mod:`crawler.blogs.wordpress`: WordPress, REST API objects first, theme HTML as fallback.
* :mod:`crawler.blogs.generic`: any blog, from feeds, sitemaps and page metadata.
"""
