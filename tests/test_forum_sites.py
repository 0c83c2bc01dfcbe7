"""``scrapy crawl forum -a start_urls=A,B,C``: several forums in one crawl (issue 29).

Real crawls of fixture forums served on 127.0.0.1, one port each (a host each): every site
detected on its own (phpBB, Discuz!, and FluxBB, which no profile knows: the learned
fallback), its items carrying its own ``site``, and equal to that site crawled alone. Then
two node processes on a real Redis share the forums by the ring, both fetching.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from crawler.frontier.keys import Keys
from crawler.frontier.ring import Ring
from crawler.settings_defaults import DEFAULTS
from tests.helpers.crawl import run_crawl
from tests.helpers.expected import load_expected, normalize
from tests.helpers.nodes import COMMON, split_names
from tests.sitekit import SITES, FixtureSites

#: Two engines with a profile, one without (read with a learned template).
FORUMS = ["phpbb", "discuz", "generic_fluxbb"]


def origin(sites: FixtureSites, name: str) -> str:
    return sites.server.origins[sites.names.index(name)]


def netloc(sites: FixtureSites, name: str) -> str:
    return origin(sites, name).split("://", 1)[1]


def zones(sites: FixtureSites) -> str:
    """The sites' time zones as CRAWLER_SITE_TIMEZONES (one -a timezone= is every site's)."""
    return json.dumps({netloc(sites, n): z for n in sites.names
                       if (z := sites.arguments(n).get("timezone"))})


def by_site(items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        out[item["site"]].append(item)
    return out


def kinds(items: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[item["item_type"]] += 1
    return dict(counts)


def test_each_request_carries_its_site_and_stays_on_it() -> None:
    """Offline: a page of site A linking to site B (another forum of the crawl) yields no
    request for B read as A; A's requests carry A; a request without a site (a learned
    template's re-fetch) is read as the site its URL is on."""
    from crawler.spiders.forum import PhpbbSpider  # type: ignore[attr-defined]

    crawler = get_crawler(PhpbbSpider, settings_dict={"ADDONS": {}})
    spider = crawler.spider = PhpbbSpider.from_crawler(
        crawler, start_urls="http://a.example/index.php,http://b.example:8080/index.php")
    body = (SITES / "phpbb" / "index.html").read_bytes().replace(
        b'href="./viewforum.php?f=3', b'href="http://b.example:8080/viewforum.php?f=3')
    page = HtmlResponse(url="http://a.example/index.php", body=body, encoding="utf-8")
    out = list(spider.parse_page(page, engine="phpbb", kind="index", site="a.example"))
    assert [r.url for r in out] == ["http://a.example/viewforum.php?f=2"]
    assert out[0].cb_kwargs["site"] == "a.example"
    assert crawler.stats.get_value("forum/other_site") == 1
    thread = HtmlResponse(url="http://b.example:8080/viewtopic.php?t=101", encoding="utf-8",
                          body=(SITES / "phpbb" / "viewtopic-101-1.html").read_bytes())
    out = list(spider.parse_page(thread, engine="phpbb", kind="thread"))  # no site: its URL's
    items = [i for i in out if not isinstance(i, Request)]
    assert items and {i.site for i in items} == {"b.example:8080"}
    assert {r.cb_kwargs["site"] for r in out if isinstance(r, Request)} == {"b.example:8080"}


@pytest.mark.parametrize("sites", [1, 2])
def test_a_site_that_is_not_a_forum_ends_itself_not_the_other_sites(sites: int) -> None:
    """The learned fallback gives up on a site that is not a forum: with one site that ends
    the crawl (close reason not_a_forum, as before); with several, only that site."""
    from scrapy.exceptions import CloseSpider

    from crawler.profiles.learned_store import store_for
    from crawler.spiders.forum import ForumSpider

    urls = ["http://blog.example/", "http://bbs.example/"][:sites]
    crawler = get_crawler(ForumSpider, settings_dict={"ADDONS": {}})
    spider = crawler.spider = ForumSpider.from_crawler(crawler, start_urls=",".join(urls),
                                                       profile="none", fallback="learned")
    store_for(crawler).learner("blog.example").max_pages = 3
    pages = [HtmlResponse(url=f"http://blog.example/post/{n}", encoding="utf-8",
                          body=f"<html><body><p>An article, number {n}.</p></body></html>".encode())
             for n in range(3)]
    read = [lambda page=page: list(spider.parse_page(page, engine="learned", kind="page")) for page in pages]
    for one in read[:-1]:
        one()
    if sites == 1:
        with pytest.raises(CloseSpider) as stop:
            read[-1]()
        assert stop.value.reason == "not_a_forum"
    else:
        assert read[-1]() == []
        assert crawler.stats.get_value("learn/not_a_forum") == 1


def test_the_embedded_crawl_id_of_a_forum_list() -> None:
    """One forum: ``forum-<host>`` as before. Several: the first host, how many, and a digest
    of them all (crawler.state.default_crawl_id, as for ``follow``): the same list resumes the
    same crawl, another list is another crawl."""
    from crawler.spiders.forum import ForumSpider
    from crawler.state import default_crawl_id

    def crawl_id(urls: str) -> str:
        return default_crawl_id("forum", ForumSpider(start_urls=urls).start_urls)

    assert crawl_id("https://bbs.example.org/forum.php") == "forum-bbs.example.org"
    assert crawl_id("http://127.0.0.1:8080/") == "forum-127.0.0.1-8080"
    several = crawl_id("https://a.example/,https://b.example/,https://c.example:81/")
    assert re.fullmatch(r"forum-a\.example-3-sites-[0-9a-f]{6}", several), several
    assert crawl_id("https://a.example/,https://c.example:81/,https://b.example/x") == several
    assert crawl_id("https://a.example/,https://b.example/") != several


@pytest.mark.slow
def test_one_crawl_of_three_forums_equals_each_crawled_alone(tmp_path: Path) -> None:
    with FixtureSites(FORUMS) as sites:
        urls = [sites.start_url(n) for n in FORUMS]
        together = run_crawl("forum", ",".join(urls), tmp_path / "all" / "out.jl",
                             settings={"CRAWLER_SITE_TIMEZONES": zones(sites)})
        served_together = sites.recorder.fetch_counts()
        sites.recorder.reset()
        alone = {}
        for name in FORUMS:
            with tempfile.TemporaryDirectory() as tmp:
                alone[name] = run_crawl("forum", sites.start_url(name), Path(tmp) / "out.jl",
                                        args=sites.arguments(name)).items
        served_alone = sites.recorder.fetch_counts()
    # each site detected on its own first page (and the one no profile knows learned)
    assert together.stats.get("profiles/detected/phpbb") == 1, together.stats
    assert together.stats.get("profiles/detected/discuz") == 1, together.stats
    assert together.stats.get("profiles/undetected") == 1, together.stats
    assert together.stats.get("profiles/fallback/learned") == 1, together.stats
    assert together.stats.get("learn/learned") == 1, together.stats
    grouped = by_site(together.items)
    assert set(grouped) == {netloc(sites, n) for n in FORUMS}, set(grouped)
    for name in FORUMS:
        mine = normalize(grouped[netloc(sites, name)], origin(sites, name))
        assert kinds(mine).get("thread", 0) > 0 and kinds(mine).get("post", 0) > 0, (name, kinds(mine))
        assert {i["engine"] for i in mine} == {"learned" if name == "generic_fluxbb" else name}
        assert mine == normalize(alone[name], origin(sites, name)), name
        assert mine == load_expected(name), name
    # the one crawl fetched what the three crawls alone fetched, page for page
    assert served_together == served_alone
    assert {netloc(sites, n) for n in FORUMS} == {u.split("/")[2] for u in served_together}


@pytest.mark.slow
def test_two_nodes_share_the_forums_of_one_crawl(redis_server, nodes) -> None:
    crawl = "forums"
    with FixtureSites(FORUMS) as sites:
        urls = [sites.start_url(n) for n in FORUMS]
        hosts = [netloc(sites, n) for n in FORUMS]
        names = split_names(hosts, DEFAULTS["CRAWLER_RING_VNODES"])
        settings = {**COMMON, "REDIS_URL": redis_server.url, "CRAWLER_CRAWL_ID": crawl,
                    "DOWNLOAD_DELAY": 0.05, "CRAWLER_SITE_TIMEZONES": zones(sites)}
        # paused until both have joined: a node alone in the ring owns every host, and on a
        # loaded machine one node's start-up can outlast three small forums
        client = redis_server.client()
        client.hset(Keys(crawl).control, "paused", "1")
        cluster = [nodes(name, urls, spider="forum", **settings) for name in names]
        for node in cluster:
            assert node.wait_for_log("joined the ring", 120), node.output()[-3000:]
        client.hdel(Keys(crawl).control, "paused")
        assert [n.wait(180) for n in cluster] == [0, 0], cluster[0].output()[-3000:]
        served = sites.recorder.fetch_counts()
    # each page once (the start pages too, though both nodes queued them), but the thread
    # pages the learned site's template was learned on: read again with the template
    learned = netloc(sites, "generic_fluxbb")
    assert {u: c for u, c in served.items() if c > (2 if f"/{learned}/" in u else 1)} == {}
    assert all(served[u] == 1 for u in urls)
    items = {node.name: [json.loads(line) for line in node.feed_path.read_text().splitlines() if line]
             for node in cluster}
    assert all(items.values()), {n: len(i) for n, i in items.items()}  # both nodes fetched
    ring = Ring(dict.fromkeys(names, 1), vnodes=DEFAULTS["CRAWLER_RING_VNODES"])
    stolen = sum(node.stats().get("frontier/stolen", 0) for node in cluster)
    print({n: sorted({i["site"] for i in node_items}) for n, node_items in items.items()}, f"stolen {stolen}")
    if not stolen:  # each node read exactly the forums the ring gives it
        for node in cluster:
            assert {i["site"] for i in items[node.name]} == {h for h in hosts if ring.owner(h) == node.name}
    grouped = by_site([i for node_items in items.values() for i in node_items])
    for name in FORUMS:
        assert normalize(grouped[netloc(sites, name)], origin(sites, name)) == load_expected(name), name
    for node in cluster:
        assert "Traceback" not in node.output(), node.output()[-3000:]


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")


@needs_kubectl
def test_the_guides_forum_list_overlay_starts_one_forum_crawl_on_the_statefulset(tmp_path: Path) -> None:
    """k8s/README.md step 9's overlay, as written: it renders and validates, every node runs
    the forum spider over the whole list under one crawl id, and that command passes the
    crawl's start-up checks (arguments, CRAWLER_SITE_TIMEZONES) up to connecting to Redis."""
    import kubernetes_validate
    import yaml

    from tests.helpers import ROOT
    from tests.helpers.k8s import K8S, container, find

    guide = (K8S / "README.md").read_text()
    section = guide[guide.index("## 9. Crawl a list of forums"):guide.index("## Security")]
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
                if "# k8s/overlays/forums/kustomization.yaml" in b]
    shutil.copytree(K8S, tmp_path / "k8s")
    overlay = tmp_path / "k8s" / "overlays" / "forums"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(block)
    out = subprocess.run(["kubectl", "kustomize", str(overlay)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    objects = [doc for doc in yaml.safe_load_all(out) if doc]
    for obj in objects:
        kubernetes_validate.validate(obj, "1.32.0", strict=True)
    node = container(find(objects, "StatefulSet", "crawler"), "crawler")
    env = find(objects, "ConfigMap", node["envFrom"][0]["configMapRef"]["name"])["data"]
    assert env["CRAWL_SPIDER"] == "forum" and env["CRAWLER_CRAWL_ID"] == "forums"
    assert len(env["START_URLS"].split(",")) >= 3
    assert json.loads(env["CRAWLER_SITE_TIMEZONES"])
    args = [re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], a) for a in node["args"]]
    assert args == ["forum", "-a", "start_urls=" + env["START_URLS"]]
    settings = [x for k in ("CRAWLER_SITE_TIMEZONES", "CRAWLER_CRAWL_ID") for x in ("-s", f"{k}={env[k]}")]
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", *args, *settings, "-s", "REDIS_URL=redis://127.0.0.1:9/0",
         "-s", "CRAWLER_REDIS_CONNECT_TIMEOUT=0.1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "cannot reach Redis" in proc.stderr, proc.stderr[-2000:]
