"""The demo: ``content`` (the generated multi-host forum), ``site`` (that forum served on
127.0.0.1 with every request recorded) and ``__main__`` (``python -m crawler.demo``)."""
