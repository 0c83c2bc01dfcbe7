"""The spider arguments every spider shares: ``-a start_urls=URL[,URL...]``.

One convention for every spider (the k8s manifests and the README pass ``start_urls``):
comma-separated URLs, ``start_url`` accepted as an alias (the two are merged).
:func:`parse_start_urls` reads and checks them; ``follow``, ``forum`` and the engine spiders
call it and crawl every site given (for ``forum``, each start URL a site of its own).
:func:`one_site` adapts a spider that crawls one site per run (``blog``, ``wordpress``), whose
``__init__`` and ``check_arguments`` take ``start_url``, to the shared convention.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from crawler.config import check_url
from crawler.node.traps import strip_userinfo

__all__ = ["one_site", "parse_start_urls", "split_urls"]

_S = TypeVar("_S", bound=type)


def parse_start_urls(
    start_urls: str | list[str] | None = None, start_url: str | None = None
) -> list[str]:
    """The start URLs of ``-a start_urls=...`` and/or ``-a start_url=...``, in order, without
    repeats nor a userinfo (``http://user:pw@host/`` is ``http://host/``, as the frontier
    queues it: the site is ``host``, and no password goes into items or logs); ValueError
    (one line) if there are none or one is not a valid http(s) URL."""
    given = start_urls if isinstance(start_urls, list) else split_urls(start_urls or "")
    urls = list(dict.fromkeys(strip_userinfo(u.strip())
                              for u in [*given, *split_urls(start_url or "")] if u.strip()))
    if not urls:
        raise ValueError("give the sites to crawl: -a start_urls=URL[,URL...]")
    for url in urls:
        check_url(url)
    return urls


def split_urls(urls: str) -> list[str]:
    """``urls`` cut at the commas that end one URL: before the next's scheme, or at the end.
    A comma inside a URL stays (Phorum's threads are ``read.php?4,132``)."""
    return _URL_END.split(urls)


_URL_END = re.compile(r",(?=\s*[A-Za-z][A-Za-z0-9+.-]*://|\s*$)")


def _single(spider: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    urls = parse_start_urls(kwargs.pop("start_urls", None), kwargs.pop("start_url", None))
    if len(urls) > 1:
        raise ValueError(f"the {spider} spider crawls one site per crawl, got {len(urls)} start"
                         f" URLs ({', '.join(urls)}); run one crawl per site (on the embedded Redis"
                         " each gets a crawl id of its own; with REDIS_URL give each"
                         " -s CRAWLER_CRAWL_ID=...)")
    return {**kwargs, "start_url": urls[0]}


def one_site(cls: _S) -> _S:
    """Class decorator: ``start_urls`` (one URL) or its alias ``start_url`` for a spider whose
    ``__init__(start_url=...)`` and ``check_arguments`` read one ``start_url``. Sets
    ``start_urls`` to that one URL too."""
    init = cls.__init__
    check = cls.__dict__["check_arguments"]
    func = check.__func__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs = _single(self.name, kwargs)
        init(self, *args, **kwargs)
        self.start_urls = [kwargs["start_url"]]

    if isinstance(check, classmethod):
        wrapped: Any = classmethod(lambda c, **kw: func(c, **_single(c.name, kw)))
    else:
        wrapped = staticmethod(lambda **kw: func(**_single(cls.name, kw)))
    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__
    cls.check_arguments = wrapped
    return cls
