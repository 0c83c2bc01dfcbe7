"""A learned template printed as a profile module: it compiles, registers as an engine detected
by host, and reads pages the same way the template does."""

from __future__ import annotations

from scrapy.http import HtmlResponse

from crawler.learn.dom import parse
from crawler.learn.learner import Page, learn_site
from crawler.learn.profile_file import render_profile
from crawler.learn.template import Template
from crawler.profiles import REGISTRY, PageCursor, PageKind
from tests.learn import pages

BASE = "http://forum.test"


def test_profile_module_reads_like_the_template() -> None:
    site = [Page(f"{BASE}/thread.php?t={t}", parse(pages.div_posts(t, 1))) for t in (1, 2, 3)]
    site.append(Page(f"{BASE}/thread.php?page=2&t=1", parse(pages.div_posts(1, 2))))
    template = learn_site(site)
    assert isinstance(template, Template)
    source = render_profile(template, name="forum_test_learned")
    assert "class ForumTestLearned(TemplateProfile):" in source
    namespace: dict[str, object] = {}
    try:
        exec(compile(source, "forum_test_learned.py", "exec"), namespace)  # noqa: S102 - our own output
        profile_cls = REGISTRY.get("forum_test_learned")
        assert profile_cls is namespace["ForumTestLearned"] and profile_cls in REGISTRY.engines
        page = HtmlResponse(url=f"{BASE}/thread.php?t=7", body=pages.div_posts(7, 1).encode(), encoding="utf-8")
        assert profile_cls.detect(page)
        assert not profile_cls.detect(HtmlResponse(url="http://other.test/", body=b"<html></html>"))
        result = profile_cls().read(page, PageKind.PAGE, PageCursor(url=page.url), None)
        assert [p.post_id for p in result.posts] == ["700", "701", "702", "703"]
        assert result.thread is not None and result.thread.title == "Thread number 7"
        expected = Template.from_json(template.to_json())
        expected.learned_from = []  # the module lists them in a comment
        assert profile_cls.template() == expected
    finally:
        REGISTRY.remove("forum_test_learned")
