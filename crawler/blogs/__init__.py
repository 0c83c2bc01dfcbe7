"""Blog readers: pure extraction over responses, used by the ``wordpress`` and ``blog`` spiders.

* :mod:`crawler.blogs.wordpress`: WordPress, REST API objects first, theme HTML as fallback.
* :mod:`crawler.blogs.generic`: any blog, from feeds, sitemaps and page metadata; the post a
  page declares (:mod:`crawler.blogs.entry`, :mod:`crawler.blogs.lone` where it declares it
  with no vocabulary), its comments (:mod:`crawler.blogs.comments`), the site's day/month order
  of numeric dates (:mod:`crawler.blogs.day_month`: the one that keeps state, for the spider).
* :mod:`crawler.blogs.waits`: items that wait for more of the site (the feeds, the day/month
  order) wait inside their page's callback, so the page is not acked before they are out.
"""
