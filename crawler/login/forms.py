"""The login form of an engine, as its profile declares it (``login = LoginForm(...)``).

A form is filled with Scrapy's :meth:`~scrapy.http.FormRequest.from_response`, so its hidden
fields and CSRF tokens (phpBB ``sid``/``form_token``, MyBB ``my_post_key``, Discuz!
``formhash``, SMF's session field, WordPress ``testcookie``) come along; only the user name and
password fields (and ``extra``) are set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.http import Response

#: Any page's login form: the form that holds a password input
PASSWORD_FORM = "//form[.//input[translate(@type, 'PASSWORD', 'password')='password']]"
#: A link that logs out: never fetched while a session is in use, and the sign of one
LOGOUT = re.compile(r"(?:[?&](?:mode|action|do)=log_?out\b|/log_?out\b|[?&]mod=logging&action=logout)",
                    re.IGNORECASE)


@dataclass(frozen=True)
class LoginForm:
    """How to log in to an engine, and how its pages say "log in first".

    ``url``: the login page, relative to the forum's root (the start URL's folder).
    ``form``: XPath of the form (default: the one with a password input).
    ``username`` / ``password``: the names of those fields; ``extra``: further values.
    ``error``: CSS of the engine's message when the login fails.
    ``logged_in``: CSS present on a page when a user is logged in.
    ``denied``: texts of the engine's "log in first / not authorised" pages.
    ``token``: the name of the engine's CSRF token input, kept with the session.
    ``token_pattern``: a regex of the page whose group 1 is that token, for an engine that
    keeps it in a script rather than in the form (NodeBB's ``config.csrf_token``): it is sent
    as the field ``token``.
    ``delay``: seconds between fetching the form and sending it (phpBB refuses a form sent
    within the second it was made).
    """

    url: str
    username: str = "username"
    password: str = "password"
    form: str = PASSWORD_FORM
    extra: dict[str, str] = field(default_factory=dict)
    error: tuple[str, ...] = ()
    logged_in: str = 'a[href*="logout"], a[href*="log_out"]'
    denied: tuple[str, ...] = ()
    token: str | None = None
    token_pattern: str | None = None
    delay: float = 0.0

    def denies(self, response: Response) -> bool:
        """Whether *response* is one of the engine's "log in first" pages (by its texts)."""
        text = getattr(response, "text", "")
        return any(t in text for t in self.denied)

    def is_logged_in(self, response: Response) -> bool:
        return bool(hasattr(response, "css") and response.css(self.logged_in))


#: WordPress (the blog engines have no forum profile): private posts, members-only sites
WORDPRESS = LoginForm(
    url="wp-login.php", username="log", password="pwd", form="//form[@id='loginform']",
    error=("#login_error",), logged_in='#wpadminbar, a[href*="action=logout"]',
)


def is_wordpress(response: Response) -> bool:
    if not hasattr(response, "css"):
        return False
    generator = response.css('meta[name="generator"]::attr(content)').get("")
    return generator.startswith("WordPress") or bool(response.css('link[href*="/wp-content/"], '
                                                                  'script[src*="/wp-includes/"]'))
