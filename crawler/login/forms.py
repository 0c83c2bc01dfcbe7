"""The login form of an engine, as its profile declares it (``login = LoginForm(...)``).

A form is filled with Scrapy's :meth:`~scrapy.http.FormRequest.from_response`, so its hidden
fields and CSRF tokens (phpBB ``sid``/``form_token``, MyBB ``my_post_key``, Discuz!
``formhash``, SMF's session field, WordPress ``testcookie``) come along; only the user name and
password fields (and ``extra``) are set.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.http import FormRequest
from scrapy.http.request import NO_CALLBACK

if TYPE_CHECKING:
    from scrapy.http import Response

#: Any page's login form: the form that holds a password input
PASSWORD_FORM = "//form[.//input[translate(@type, 'PASSWORD', 'password')='password']]"
#: A link that logs out: never fetched while a session is in use, and the sign of one
LOGOUT = re.compile(
    r"(?:[?&](?:mode|action|do)=log_?out\b|/log_?out\b|[?&]mod=logging&action=logout)",
    re.IGNORECASE)
#: A login form that asks a CAPTCHA or a question (Discuz! seccode/secqaa, MyBB's captcha
#: after failed logins, reCAPTCHA, hCaptcha, Turnstile): no password login is possible
_CAPTCHA = re.compile(r"captcha|seccode|secqaa|secanswer|imagestring|cf-turnstile", re.IGNORECASE)


@dataclass(frozen=True)
class LoginForm:
    """How to log in to an engine, and how its pages say "log in first".

    ``url``: the login page, relative to the forum's root (the start URL's folder).
    ``form``: XPath of the form (default: the one with a password input).
    ``username`` / ``password``: the names of those fields; ``extra``: further values.
    ``error``: CSS of the engine's message when the login fails.
    ``logged_in``: CSS present on a page when a user is logged in.
    ``denied``: texts of the engine's "log in first / not authorised" pages.
    ``denial_at``: XPath of the text nodes of the engine's message templates (its login
    page's form, its error page's message), where a ``denied`` text decides.
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
    denial_at: str = ""
    token: str | None = None
    token_pattern: str | None = None
    delay: float = 0.0

    def denies(self, response: Response) -> bool:
        """Whether *response* is one of the engine's "log in first" pages: one of its texts
        in its message template (``denial_at``), or, for an engine without one, in an error
        answer (status 400 or more). A post or a thread title that quotes the words is no
        denial."""
        text = getattr(response, "text", "")
        if not any(t in text for t in self.denied):  # (nearly every page: no parsing)
            return False
        if not self.denial_at:
            return response.status >= 400
        try:
            where = " ".join(" ".join(response.xpath(self.denial_at).getall()).split())
        except ValueError:  # not HTML (a JSON answer)
            return response.status >= 400
        return any(" ".join(t.split()) in where for t in self.denied)

    def is_logged_in(self, response: Response) -> bool:
        return bool(hasattr(response, "css") and response.css(self.logged_in))

    def fill(self, page: Response, user: str, password: str) -> FormRequest:
        """This form on *page*, filled (its hidden fields and tokens come along);
        ValueError if the page has none."""
        with warnings.catch_warnings():  # Scrapy 2.19 points to form2request, not installed
            warnings.simplefilter("ignore", ScrapyDeprecationWarning)
            return FormRequest.from_response(
                page, formxpath=self.form, callback=NO_CALLBACK, dont_filter=True,
                formdata={self.username: user, self.password: password, **self.extra,
                          **self._script_token(page)})

    def captcha_of(self, page: Response) -> str | None:
        """The name of the CAPTCHA or question this form on *page* asks, if it does."""
        # (Discuz! writes its seccode / secqaa into an empty <span id="seccode_..."> by script)
        first = f"({self.form})[1]"
        names = page.xpath(f"{first}//input/@name | {first}//div/@class | {first}//*/@id").getall()
        return next((n for n in names if _CAPTCHA.search(n)), None)

    def _script_token(self, page: Response) -> dict[str, str]:
        """The CSRF token of an engine that keeps it in a script (``token_pattern``), as the
        form field ``token``; nothing if the form has that field, or the page no token."""
        if not (self.token and self.token_pattern and hasattr(page, "xpath")):
            return {}
        if page.xpath(f"({self.form})[1]//input[@name='{self.token}']"):
            return {}
        found = re.search(self.token_pattern, page.text)
        return {self.token: found.group(1)} if found else {}

    def error_of(self, response: Response, password: str) -> str | None:
        """The engine's message when a login failed (*password* masked in it), else None."""
        if not hasattr(response, "css"):
            return None
        text = ""
        if response.status >= 400 and b"<" not in response.body[:200]:
            # a bare message (NodeBB answers 403 "[[error:invalid-username-or-password]]")
            text = " ".join(response.text.split())
            if key := re.fullmatch(r"\[\[\w+:([\w-]+)\]\]", text):
                text = key.group(1).replace("-", " ").capitalize()
        for selector in self.error:
            text = text or " ".join("".join(response.css(selector).css("::text").getall()).split())
        if text:
            return (text.replace(password, "***") if password else text)[:300]
        if response.xpath(self.form) and not self.is_logged_in(response):
            return "the login form came back (wrong user name or password?)"
        return None


#: WordPress (the blog engines have no forum profile): private posts, members-only sites
WORDPRESS = LoginForm(
    url="wp-login.php", username="log", password="pwd", form="//form[@id='loginform']",
    error=("#login_error",), logged_in='#wpadminbar, a[href*="action=logout"]',
)


def origin_of(url: str) -> str:
    """``scheme://host:port`` of *url* (the port written even when it is the default)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{(parts.hostname or '').lower()}:{port}"


def is_wordpress(response: Response) -> bool:
    if not hasattr(response, "css"):
        return False
    generator = response.css('meta[name="generator"]::attr(content)').get("")
    return generator.startswith("WordPress") or bool(response.css('link[href*="/wp-content/"], '
                                                                  'script[src*="/wp-includes/"]'))
