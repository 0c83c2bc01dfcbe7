"""Members-only boards: pages that are not content, a browser's cookies, and one login per
site for the whole cluster.

* :mod:`.pages`: a login page, a "not authorised / must be registered" page and a bot wall
  are never read as content; they end as outcomes of their own
  (:data:`LOGIN_REQUIRED`, :data:`CHALLENGE`), and each site says once, at the close, how
  many of its URLs it could not read.
* :mod:`.forms`: the login form each engine declares (:class:`~.forms.LoginForm`, a
  profile's ``login``), its denial texts and its logged-in marker.
* :mod:`.cookiesfile`: a Netscape ``cookies.txt`` (:setting:`CRAWLER_COOKIES_FILE`).
* :mod:`.credentials`: :setting:`CRAWLER_LOGIN` (or the ``CRAWLER_LOGIN`` environment
  variable), ``-a username=... -a password=...``.
* :mod:`.session`: the session of a site in the crawl's Redis, and its lock.
* :mod:`.middleware`: logs in before the first request (once per site for the cluster),
  renews an expired session once, and keeps every password out of logs and stats.

This module stays light: profiles import :mod:`.forms`, the spider :mod:`.pages`.
"""

from __future__ import annotations

#: The outcome of a page that asks for a login, or says "not authorised / must be registered"
LOGIN_REQUIRED = "filtered/login_required"
#: The outcome of a bot wall or challenge page (Cloudflare, DDoS-Guard, ...)
CHALLENGE = "failed/challenge"
#: The stat that holds the one line of a failed login (``scrapy crawl`` prints it, exit 2)
LOGIN_FAILED_STAT = "login/failed"
#: The close reason of a crawl that could not log in
LOGIN_FAILED_REASON = "login_failed"
