"""One argument convention for every spider: ``-a start_urls=URL[,URL...]``, ``start_url``
an alias; the k8s manifests' arguments work for every spider, and the guide's namespaces
are the overlays' own."""

from __future__ import annotations

import re
import shutil

import pytest
from scrapy.spiderloader import SpiderLoader
from scrapy.utils.project import get_project_settings

from crawler.spiders.arguments import parse_start_urls
from tests.helpers import ROOT, forked

LOADER = SpiderLoader.from_settings(get_project_settings())
SPIDERS = sorted(LOADER.list())
FORUMS = {name for name in SPIDERS if name == "forum" or getattr(LOADER.load(name), "profile_class", None)}
MULTI_SITE = {"follow"} | FORUMS


def test_parse_start_urls():
    assert parse_start_urls("http://a/, https://b/x,") == ["http://a/", "https://b/x"]
    assert parse_start_urls(start_url="http://a/") == ["http://a/"]
    assert parse_start_urls("http://a/", "http://a/,http://c/") == ["http://a/", "http://c/"]
    # a comma inside a URL is the URL's (Phorum: read.php?4,132)
    assert parse_start_urls("http://a/read.php?4,132,http://c/list.php?4,2") == [
        "http://a/read.php?4,132", "http://c/list.php?4,2"]
    with pytest.raises(ValueError, match="-a start_urls=URL"):
        parse_start_urls("", None)
    with pytest.raises(ValueError, match="'ftp://x' must start with http"):
        parse_start_urls("ftp://x")


@pytest.mark.parametrize("spider", SPIDERS)
@pytest.mark.parametrize("argument", ["start_urls", "start_url"])
def test_every_spider_takes_start_urls_and_its_alias(spider, argument):
    cls = LOADER.load(spider)
    cls.check_arguments(**{argument: "http://forum.example.org/"})
    instance = cls(**{argument: "http://forum.example.org/"})
    assert instance.start_urls == ["http://forum.example.org/"]
    with pytest.raises(ValueError, match="start_urls=URL"):
        cls.check_arguments()


@pytest.mark.parametrize("spider", SPIDERS)
def test_a_start_url_s_userinfo_is_no_part_of_the_site(spider):
    """Issue 27, item 18: the frontier fetches http://user:pw@host/ as http://host/; the
    forum spiders' items carried 'user:pw@host' as their site, the password included."""
    instance = LOADER.load(spider)(start_urls="http://user:secret@forum.example.org:8080/x")
    assert instance.start_urls == ["http://forum.example.org:8080/x"]
    if spider in FORUMS:
        assert instance.sites == {"forum.example.org:8080": "forum.example.org"}


@pytest.mark.parametrize("spider", sorted(set(SPIDERS) - MULTI_SITE))
def test_one_site_spiders_refuse_several_urls_in_one_line(spider):
    with pytest.raises(ValueError, match=f"the {spider} spider crawls one site per crawl"):
        LOADER.load(spider).check_arguments(start_urls="http://a/,http://b/")


@pytest.mark.parametrize("spider", sorted(FORUMS))
def test_forum_spiders_take_several_sites(spider):
    """Each start URL a site of its own: its host[:port] the items' site, its domain allowed."""
    cls = LOADER.load(spider)
    urls = "http://a.example/forum/,https://www.b.example:8443/index.php,http://a.example/other/"
    assert cls.check_arguments(start_urls=urls) == urls.split(",")
    forum = cls(start_urls=urls)
    assert forum.start_urls == urls.split(",")
    assert forum.sites == {"a.example": "a.example", "www.b.example:8443": "b.example"}
    assert forum.allowed_domains == ["a.example", "b.example"]
    assert forum.site_of("http://a.example/t/1") == "a.example"
    assert forum.site_of("https://b.example/x") == "www.b.example:8443"
    assert forum.site_of("http://img.b.example/x") == "www.b.example:8443"
    assert forum.site_of("http://c.example/x") is None


def test_one_forum_is_as_before():
    forum = LOADER.load("forum")(start_url="http://www.a.example:8080/forum.php")
    assert (forum.start_url, forum.site, forum.allowed_domains) == (
        "http://www.a.example:8080/forum.php", "www.a.example:8080", ["a.example"])
    assert forum.default_charset is None and LOADER.load("discuz")(start_url="http://a/").default_charset == "gb18030"


def test_follow_takes_several_sites():
    spider = LOADER.load("follow")(start_urls="http://a.example/,http://b.example:8080/x")
    assert spider.start_urls == ["http://a.example/", "http://b.example:8080/x"]
    assert spider.allowed_domains == ["a.example", "b.example"]


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")


@needs_kubectl
@pytest.mark.parametrize("overlay", ["dev", "prod"])
@pytest.mark.parametrize("spider", ["follow", "forum", "phpbb", "blog", "wordpress"])
def test_the_manifests_arguments_start_every_spider(overlay, spider):
    """The pod's command with CRAWL_SPIDER=<spider> passes the preflight (it used to exit 2)."""
    from tests.helpers.k8s import container, find, render  # noqa: PLC0415

    objects = render(overlay)
    node = container(find(objects, "StatefulSet", "crawler"), "crawler")
    env = {"CRAWL_SPIDER": spider, "START_URLS": "http://127.0.0.1:9/"}
    args = [re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], a) for a in node["args"]]
    assert args[0] == spider and "start_urls=http://127.0.0.1:9/" in args
    # The preflight only (an unreachable REDIS_URL after it ends the command with exit 2):
    # bad arguments would end it first, with their own message.
    proc = forked.run("scrapy", ["crawl", *args, "-s", "REDIS_URL=redis://127.0.0.1:9/0",
                                 "-s", "CRAWLER_REDIS_CONNECT_TIMEOUT=0.1"], cwd=ROOT, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "cannot reach Redis" in proc.stderr, proc.stderr[-2000:]


@needs_kubectl
@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_the_guide_names_each_overlays_namespace(overlay):
    from tests.helpers.k8s import render  # noqa: PLC0415

    namespaces = {o["metadata"]["name"] for o in render(overlay) if o["kind"] == "Namespace"}
    assert len(namespaces) == 1
    guide = (ROOT / "k8s" / "README.md").read_text()
    assert f"NS={namespaces.pop()}" in guide
    # every kubectl command after "Start" works in either overlay's namespace
    after_start = guide[guide.index("## 3. Start"):]
    assert "kubectl -n crawler " not in after_start
