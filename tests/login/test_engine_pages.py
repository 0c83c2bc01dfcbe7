"""The login of each engine on pages captured from the lab's real installs (tests/login/pages:
SMF 2.1.4, Discuz! X3.5, NodeBB 1.4.0, WordPress 6.1, next to phpBB and MyBB): the profile's
form is found and filled with its hidden fields and CSRF token, a CAPTCHA is seen before
anything is sent, the engine's own message of a wrong password is read, and a logged-in page
is one. XenForo 2.2, vBulletin 3.8 and 4.2 the same on pages rendered from the engines' own
templates (no live install: see each folder's SOURCE.md). And Discuz!'s anti-CC pages (``attackevasive`` 1, 2, 4, 8), captured from the lab's
Discuz with that setting on (PHP 8.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, TextResponse
from scrapy.utils.test import get_crawler

from crawler.login import CHALLENGE, LOGIN_REQUIRED
from crawler.login.evasive import PROXY, QUESTION, RELOAD, Evasive, kind_of
from crawler.login.engines import form_of_engine
from crawler.login.pages import wall_of

PAGES = Path(__file__).parent / "pages"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
ENGINES = ["smf-2.1.4", "discuz-x3.5", "nodebb-1.4.0", "wordpress-6.1", "phpbb-3.3.10",
           "mybb-1.8.37", "xenforo-2.2", "vbulletin-3.8.11", "vbulletin-4.2.2"]


def page(engine: str, name: str, url: str = "http://127.0.0.1/login", status: int = 200):
    return HtmlResponse(url, body=(PAGES / engine / name).read_bytes(), encoding="utf-8",
                        status=status)


def form(engine: str):
    return form_of_engine(engine.split("-")[0])


@pytest.mark.parametrize("engine", ENGINES)
def test_the_login_page_gives_a_filled_post_with_every_hidden_field(engine):
    response = page(engine, "login-page.html")
    login = form(engine)
    request = login.fill(response, "alice", "pw-42")
    body = request.body.decode()
    assert request.method == "POST"
    assert f"{login.username}=alice" in body and f"{login.password}=pw-42" in body
    hidden = response.xpath(f"({login.form})[1]//input[@type='hidden']")
    # (NodeBB's has none: its token is in a script, below)
    assert hidden or login.token_pattern, "the engines' forms carry hidden fields or tokens"
    for field in hidden:
        name = field.attrib["name"]
        assert f"{name}=" in body, name
    assert login.captcha_of(response) is None


def test_smf_sends_its_session_check_and_login_token():
    # two hidden fields with random names: the session var (its value the session id's
    # check) and the "login" token, both from createToken(); and the stay-logged-in select
    body = form("smf").fill(page("smf-2.1.4", "login-page.html"), "alice", "pw").body.decode()
    assert "cookielength=3153600" in body
    assert len([p for p in body.split("&") if len(p.split("=")[1]) == 32]) >= 2, body


def test_discuz_sends_formhash_and_no_security_question():
    response = page("discuz-x3.5", "login-page.html")
    body = form("discuz").fill(response, "alice", "pw").body.decode()
    formhash = response.css('input[name="formhash"]::attr(value)').get()
    assert f"formhash={formhash}" in body and "questionid=0" in body and "cookietime=2592000" in body


def test_nodebb_sends_the_csrf_token_of_the_pages_config():
    # NodeBB 1.4's form has no token input: the page's config.csrf_token goes as _csrf
    response = page("nodebb-1.4.0", "login-page.html")
    token = json.loads(response.text.split('"csrf_token":', 1)[1].split(",", 1)[0])
    body = form("nodebb").fill(response, "alice", "pw").body.decode()
    assert f"_csrf={token}" in body and "remember=on" in body
    assert not response.css('form#login-form input[name="_csrf"]')


def test_wordpress_sends_its_test_cookie_field():
    body = form("wordpress").fill(page("wordpress-6.1", "login-page.html"), "alice",
                                  "pw").body.decode()
    assert "testcookie=1" in body and "log=alice" in body and "pwd=pw" in body


def test_discuzs_login_captcha_is_seen_before_the_form_is_sent():
    # the lab's install asks a seccode at login: an empty <span id="seccode_..."> that a
    # script fills, no input in the HTML
    response = page("discuz-x3.5", "login-page-seccode.html")
    asked = form("discuz").captcha_of(response)
    assert asked and asked.startswith("seccode_")


@pytest.mark.parametrize(("engine", "name", "status", "message"), [
    ("smf-2.1.4", "login-failed.html", 200, "Password incorrect"),
    ("discuz-x3.5", "login-failed.html", 200, "登录失败，您还可以尝试 4 次"),
    ("nodebb-1.4.0", "login-failed.txt", 403, "Invalid password"),
    ("wordpress-6.1", "login-failed.html", 200,
     "Error: The password you entered for the username alice is incorrect. Lost your password?"),
    ("xenforo-2.2", "login-failed.html", 200, "Incorrect password. Please try again."),
    ("vbulletin-4.2.2", "login-failed.html", 200,
     ("You have entered an invalid username or password. Please enter the correct details and "
      "try again. Don't forget that the password is case sensitive. Forgotten your password? "
      "Click here! You have used 1 out of 5 login attempts. After all 5 have been used, you "
      "will be unable to login for 15 minutes.")),
])
def test_a_wrong_password_reads_the_engines_message(engine, name, status, message):
    body = (PAGES / engine / name).read_bytes()
    cls = HtmlResponse if name.endswith(".html") else TextResponse
    response = cls("http://127.0.0.1/login", body=body, encoding="utf-8", status=status)
    assert form(engine).error_of(response, "pw") == message


def test_a_discuz_login_that_succeeded_is_no_error():
    # its message page's <p> holds only the redirecting scripts (the old selector read them)
    response = page("discuz-x3.5", "login-succeeded.html")
    assert form("discuz").error_of(response, "pw") is None


def test_xenforo_sends_its_token_and_redirect_to_login_login():
    response = page("xenforo-2.2", "login-page.html", url="http://127.0.0.1/index.php?login/")
    login = form("xenforo")
    request = login.fill(response, "alice", "pw-42")
    body = request.body.decode()
    token = response.css('input[name="_xfToken"]::attr(value)').get()
    assert request.url == "http://127.0.0.1/login/login"
    assert f"_xfToken={token.replace(',', '%2C')}" in body and "_xfRedirect=" in body
    assert "login=alice" in body and "password=pw-42" in body and "remember=1" in body
    assert login.url == "index.php?login/" and login.token == "_xfToken"


def test_xenforo_pages_of_a_member_have_no_logout_link_and_are_logged_in():
    # the visitor menu (with "Log out") is loaded by script: html@data-logged-in tells
    login = form("xenforo")
    member = page("xenforo-2.2", "members-thread.html")
    assert not member.css('a[href*="logout"]') and login.is_logged_in(member)
    assert not login.is_logged_in(page("xenforo-2.2", "login-page.html"))


def test_xenforo_closed_pages_guest_403_and_member():
    login = form("xenforo")
    guest = page("xenforo-2.2", "login-required-thread.html", status=403)
    assert wall_of(guest, login) == LOGIN_REQUIRED and login.error_of(guest, "pw") == \
        "You must be logged-in to do that."
    member = page("xenforo-2.2", "no-permission-member.html", status=403)
    assert login.is_logged_in(member) and wall_of(member, login) == LOGIN_REQUIRED


@pytest.mark.parametrize("engine", ["vbulletin-3.8.11", "vbulletin-4.2.2"])
def test_vbulletin_sends_the_plain_password_with_empty_md5_fields(engine):
    # verify_authentication() hashes vb_login_password itself when vb_login_md5password is
    # empty (the browser's md5hash() script is not run); login.php skips the CSRF check
    login = form("vbulletin")
    assert login.url == "login.php?do=login"  # a GET redirects to the forum home and its form
    for name in ("login-page.html", "login-required-showthread.html"):
        request = login.fill(page(engine, name, url="http://127.0.0.1/forum/index.php"),
                             "alice", "pw-42")
        body = request.body.decode()
        assert request.url == "http://127.0.0.1/forum/login.php?do=login"
        assert "vb_login_md5password=&" in body and "vb_login_md5password_utf=&" in body
        assert "vb_login_username=alice" in body and "vb_login_password=pw-42" in body
        assert "do=login" in body and "securitytoken=guest" in body and "cookieuser=1" in body


def test_vbulletin3_wrong_password_message_and_success_redirect():
    login = form("vbulletin")
    message = login.error_of(page("vbulletin-3.8.11", "login-failed.html"), "pw")
    assert message.startswith("You have entered an invalid username or password. Please press "
                              "the back button") and len(message) == 300
    for engine in ("vbulletin-3.8.11", "vbulletin-4.2.2"):
        succeeded = page(engine, "login-succeeded.html")  # "Thank you for logging in, alice."
        assert login.error_of(succeeded, "pw") is None and not login.is_logged_in(succeeded)


def test_profiles_whose_login_is_no_html_form_declare_none():
    # vBulletin 5/6 logs in by script (POST auth/ajax-login, JSON), Discourse (POST /session)
    # and Flarum (POST /login, JSON) too: a browser's cookies for them
    for engine in ("vbulletin5", "discourse", "flarum"):
        assert form_of_engine(engine) is None, engine


@pytest.mark.parametrize("path", sorted(PAGES.glob("*/members-*.html")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_members_pages_are_logged_in_and_no_walls(path):
    response = page(path.parent.name, path.name)
    login = form(path.parent.name)
    assert login.is_logged_in(response)
    assert wall_of(response, login) is None


@pytest.mark.parametrize("path", sorted(PAGES.glob("*/login-required-*.html")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_guests_denials_are_walls_and_not_logged_in(path):
    response = page(path.parent.name, path.name)
    login = form(path.parent.name)
    assert wall_of(response, login) == LOGIN_REQUIRED
    assert not login.is_logged_in(response)


# -- Discuz!'s anti-CC protection ------------------------------------------------------------
@pytest.mark.parametrize(("name", "status", "kind"), [
    ("attackevasive-4-reload.html", 200, RELOAD),
    ("attackevasive-1-too-fast.html", 200, RELOAD),
    ("attackevasive-1-php8-error-503.html", 503, RELOAD),
    ("attackevasive-8-question.html", 200, QUESTION),
    ("attackevasive-2-proxy.html", 200, PROXY),
])
def test_discuz_anti_cc_pages(name, status, kind):
    assert kind_of(page("discuz-x3.5", name, status=status)) == kind


def test_no_other_page_is_an_anti_cc_page():
    seen = 0
    for path in [*PAGES.glob("*/*.html"), *REAL.glob("*/site/*.html")]:
        if path.name.startswith("attackevasive-"):
            continue
        assert kind_of(HtmlResponse("http://127.0.0.1/", body=path.read_bytes(),
                                    encoding="utf-8")) is None, path
        seen += 1
    assert seen > 100


def test_a_reload_page_is_fetched_again_then_given_up():
    evasive = Evasive(get_crawler())
    request = Request("http://127.0.0.1:18089/forum.php")
    response = page("discuz-x3.5", "attackevasive-4-reload.html", url=request.url)

    async def run():
        again = await evasive.process_response(request, response, "127.0.0.1:18089")
        assert isinstance(again, Request) and again.url == request.url and again.dont_filter
        assert evasive.due_in("127.0.0.1:18089") == 0.0  # nothing sent yet from here
        evasive.sent("127.0.0.1:18089")
        assert 0.5 < evasive.due_in("127.0.0.1:18089") <= 1.0
        twice = await evasive.process_response(again, response, "127.0.0.1:18089")
        with pytest.raises(IgnoreRequest):
            await evasive.process_response(twice, response, "127.0.0.1:18089")
        passed = page("discuz-x3.5", "members-viewthread.html", url=request.url)
        assert await evasive.process_response(again, passed, "127.0.0.1:18089") is passed
        assert evasive.stopped("127.0.0.1:18089") is None

    _run(run())


def test_an_arithmetic_question_stops_the_host_with_one_clear_message(caplog):
    crawler = get_crawler()
    evasive = Evasive(crawler)
    request = Request("http://127.0.0.1:18089/forum.php")
    response = page("discuz-x3.5", "attackevasive-8-question.html", url=request.url)
    question = response.css("title::text").get()

    async def run():
        for _ in range(2):
            with pytest.raises(IgnoreRequest):
                await evasive.process_response(request, response, "127.0.0.1:18089")

    _run(run())
    why = evasive.stopped("127.0.0.1:18089")
    assert why and "arithmetic question" in why and question in why
    assert "CRAWLER_COOKIES_FILE" in why
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and why in errors[0].getMessage()
    assert request.meta["not_content"] == CHALLENGE
    assert crawler.stats.get_value("login/attackevasive/question") == 2


def _run(coro):
    import asyncio

    asyncio.run(coro)
