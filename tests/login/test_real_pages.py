"""No false walls: the pages captured from the lab's real engines (tests/fixtures/real), guest
pages whose header often holds a quick-login form, are content, not login or challenge pages.
And the captured members-only pages (tests/login/pages, from the lab's phpBB and MyBB with a
members-only board) are walls for their engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapy.http import HtmlResponse

from crawler.login import LOGIN_REQUIRED
from crawler.login.engines import form_of_engine
from crawler.login.pages import has_login_form, wall_of
from crawler.profiles import REGISTRY

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
CAPTURED = Path(__file__).parent / "pages"


def pages(site: Path):
    routes = json.loads((site / "site" / "routes.json").read_text())["routes"]
    for target, route in routes.items():
        if "file" in route:
            body = (site / "site" / route["file"]).read_bytes()
            yield target, HtmlResponse(f"http://127.0.0.1{target}", body=body, encoding="utf-8",
                                       status=int(route.get("status", 200)))


#: Guest pages that are walls by design: SMF answers a guest the same "missing or off limits
#: to you. Please login below" page for a topic that does not exist as for one closed to guests
WALLS_TOO = {("smf-2.1.4", "/index.php?topic=9999.0")}


@pytest.mark.parametrize("site", sorted(p.name for p in REAL.iterdir() if p.is_dir()))
def test_real_guest_pages_are_not_walls(site):
    login = form_of_engine(site.split("-")[0])
    seen = 0
    for target, response in pages(REAL / site):
        expected = LOGIN_REQUIRED if (site, target) in WALLS_TOO else None
        assert wall_of(response, login) == expected, target
        seen += 1
    assert seen > 20


def test_quick_login_boxes_are_everywhere_on_some_engines():
    # why a password form alone does not make a login page
    for site in ("discuz-x3.5", "mybb-1.8.37"):
        found = [has_login_form(r) for _, r in pages(REAL / site)]
        assert sum(found) >= len(found) - 1


def captured():
    return sorted(CAPTURED.glob("*/*.html")) if CAPTURED.exists() else []


@pytest.mark.parametrize("path", captured(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_captured_members_only_pages_are_walls(path):
    login = form_of_engine(path.parent.name.split("-")[0])
    response = HtmlResponse(f"http://127.0.0.1/{path.name}", body=path.read_bytes(), encoding="utf-8")
    if path.name.startswith(("denied", "login-required")):
        assert wall_of(response, login) == LOGIN_REQUIRED
    elif path.name.startswith("login-page"):
        assert has_login_form(response)
        assert response.xpath(login.form)
    elif path.name.startswith("members"):
        assert wall_of(response, login) is None


#: the captured members-only listings and threads, at the URLs they were fetched from
MEMBERS_URLS = {
    ("phpbb-3.3.10", "members-viewtopic.html"): "http://127.0.0.1:18090/viewtopic.php?t=6",
    ("phpbb-3.3.10", "members-viewforum.html"): "http://127.0.0.1:18090/viewforum.php?f=3",
    ("mybb-1.8.37", "members-showthread.html"): "http://127.0.0.1:18087/showthread.php?tid=5",
    ("smf-2.1.4", "members-display.html"): "http://127.0.0.1:18088/index.php?topic=3.0",
    ("smf-2.1.4", "members-messageindex.html"): "http://127.0.0.1:18088/index.php?board=2.0",
    ("discuz-x3.5", "members-viewthread.html"):
        "http://127.0.0.1:18089/forum.php?mod=viewthread&tid=2",
    ("discuz-x3.5", "members-forumdisplay.html"):
        "http://127.0.0.1:18089/forum.php?mod=forumdisplay&fid=3",
}  # (NodeBB's profile reads its /api/ JSON, not these pages)


@pytest.mark.parametrize(("engine", "name"), sorted(MEMBERS_URLS), ids=lambda v: v)
def test_captured_members_only_threads_read_as_threads(engine, name):
    from crawler.profiles import PageCursor

    path = CAPTURED / engine / name
    url = MEMBERS_URLS[engine, name]
    engine = engine.split("-")[0]
    response = HtmlResponse(url, body=path.read_bytes(), encoding="utf-8")
    profile = REGISTRY.get(engine).for_page(response)()
    kind = profile.classify(url)
    page = profile.read(response, kind, PageCursor(url=url), None)
    assert page.posts or page.follow
    assert profile.login.is_logged_in(response)


@pytest.mark.parametrize("engine", ["phpbb-3.3.10", "mybb-1.8.37"])
def test_the_captured_login_page_fills_the_profiles_form(engine):
    page = CAPTURED / engine / "login-page.html"
    response = HtmlResponse("http://127.0.0.1/login", body=page.read_bytes(), encoding="utf-8")
    form = REGISTRY.get(engine.split("-")[0]).login
    request = form.fill(response, "alice", "pw")
    body = request.body.decode()
    assert request.method == "POST" and "username=alice" in body and "password=pw" in body
    tokens = {"phpbb": ("form_token=", "creation_time=", "sid=", "login=Login"),
              "mybb": ("my_post_key=", "action=do_login")}[engine.split("-")[0]]
    assert all(t in body for t in tokens), body


def test_a_redirect_to_the_login_page_is_a_wall_a_quick_login_box_is_not():
    from scrapy import Request

    from crawler.login.pages import redirected_to_login

    # NodeBB 1.4 sends a guest from a closed topic to /login (captured from the lab)
    body = (CAPTURED / "nodebb-1.4.0" / "login-page-redirected-from-topic.html").read_bytes()
    asked = "http://127.0.0.1:4567/topic/6/closed"
    request = Request("http://127.0.0.1:4567/login", meta={"redirect_urls": [asked]})
    login = HtmlResponse(request.url, body=body, encoding="utf-8", request=request)
    assert redirected_to_login(request, login)
    assert not redirected_to_login(Request(request.url), login)  # asked for the login page
    # a redirect to a guest page with a quick-login box (MyBB has one on every page)
    site = REAL / "mybb-1.8.37"
    target, page = next((t, r) for t, r in pages(site) if "showthread" in t and has_login_form(r))
    moved = Request(page.url, meta={"redirect_urls": ["http://127.0.0.1/showthread.php?pid=1"]})
    assert not redirected_to_login(moved, page), target
