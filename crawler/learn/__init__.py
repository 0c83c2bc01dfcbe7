"""Learned site templates for forums without a profile: a pure library (lxml in, plain data
out) that loads neither Scrapy's engine nor the scheduler.

Module map:

* :mod:`~crawler.learn.template`: the :class:`~crawler.learn.template.Template` (JSON);
* :mod:`~crawler.learn.learner`: :func:`~crawler.learn.learner.learn_site`, pages -> template;
* :mod:`~crawler.learn.records`: record mining (repeated sibling blocks, table rows);
* :mod:`~crawler.learn.fields`, :mod:`~crawler.learn.when`, :mod:`~crawler.learn.generalize`:
  per-record heuristics for author, date, body, position and id, and one XPath rule from them;
* :mod:`~crawler.learn.posts`: the record rule and positions across sample pages;
* :mod:`~crawler.learn.structured`: schema.org microdata posts;
* :mod:`~crawler.learn.embedded`: posts held as data (JSON-LD, a front end's embedded JSON);
* :mod:`~crawler.learn.rows`: replies, views and last post time from thread-list rows;
* :mod:`~crawler.learn.paging`, :mod:`~crawler.learn.urls`, :mod:`~crawler.learn.links`:
  pagination forms, URL shapes and ids, links worth following;
* :mod:`~crawler.learn.thread`: thread title and breadcrumbs;
* :mod:`~crawler.learn.apply`: reading a page with a template (``matches``: does it still fit);
* :mod:`~crawler.learn.strategy`: learning then applying, page by page, per host;
* :mod:`~crawler.learn.profile_file`: a template as a profile module to commit (``python -m
  crawler learn URL``, :mod:`crawler.ops.learn`).

The spider sees it as the ``learned`` fallback (:mod:`crawler.profiles.learned`), which also holds
the Scrapy and Redis glue: the per-crawl template store (:mod:`crawler.profiles.learned_store`)
and committed templates (:mod:`crawler.profiles.template_profile`).
"""
