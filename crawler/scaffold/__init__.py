"""``python -m crawler new-engine NAME --from THREAD_URL``: a forum engine the project has no
profile for, from one of its thread pages (see docs/adding-an-engine.md).

* :mod:`~crawler.scaffold.command`: the command, step by step;
* :mod:`~crawler.scaffold.record`: a crawl's pages saved as a fixture site;
* :mod:`~crawler.scaffold.markers`: detection by the engine's markup;
* :mod:`~crawler.scaffold.assess`: the limits to declare and where the reading is unsure;
* :mod:`~crawler.scaffold.render`: the profile and test modules it writes.
"""
