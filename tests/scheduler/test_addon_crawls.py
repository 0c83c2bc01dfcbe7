"""The add-on in crawls of any Scrapy project: media pipelines download binaries while binary
pages of the crawl stay filtered, a spider's ``download_delay`` spaces its host's requests
once (the gate's, not also Scrapy's slot), and items of any type pass the progress lines."""

from __future__ import annotations

from pathlib import Path

from crawler.demo.server import LoopbackServer
from tests.helpers.graph_site import GraphSite, Page
from tests.scheduler.test_lifecycle import run_in_process
from tests.sitekit.site import SiteServer

ADDON = {"ADDONS": {"crawler.addon.ClusterAddon": 0}, "CRAWLER_ALLOW_PRIVATE_ADDRESSES": True,
         "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "INFO", "CRAWLER_PROGRESS_INTERVAL": 60,
         "ROBOTSTXT_OBEY": False}
FILES = {f"/files/{name}": bytes([i]) * (1000 + i) for i, name in
         enumerate(("a.zip", "b.pdf", "c.bin"))}


def media_site() -> GraphSite:
    binary = {path: Page(content_type="application/octet-stream", body=body)
              for path, body in FILES.items()}
    index = Page(links=tuple((0, p) for p in (*FILES, "/pages/next", "/pages/blob.bin")))
    return GraphSite([{"/": index, **binary, "/pages/next": Page(),
                       "/pages/blob.bin": Page(content_type="application/zip", body=b"PK" * 600)}])


def test_files_pipeline_downloads_while_binary_pages_stay_filtered(tmp_path: Path) -> None:
    store = tmp_path / "files"
    with LoopbackServer(media_site()) as server:
        (crawl,) = run_in_process({"urls": [server.origins[0] + "/"], "spider": "files",
                                   "settings": {**ADDON, "FILES_STORE": str(store),
                                                "ITEM_PIPELINES": {
                                                    "scrapy.pipelines.files.FilesPipeline": 1}}},
                                  tmp_path / "crawl.log")
    assert crawl["reason"] == "finished", crawl
    assert crawl["stats"]["file_status_count/downloaded"] == 3, crawl
    saved = sorted(p.read_bytes() for p in (store / "full").iterdir())
    assert saved == sorted(FILES.values())
    # the crawl's own binary page is still stopped at its headers, its callback never runs
    assert crawl["pages"] == 2, crawl  # the index and /pages/next
    assert crawl["stats"]["frontier/not_a_page"] == 1, crawl
    assert crawl["errors"] == [], crawl


def test_the_spiders_download_delay_spaces_its_host_once(tmp_path: Path) -> None:
    delay = 0.4
    with SiteServer(hosts=1, pages_per_host=6, seed=3) as site:
        urls = sorted(site.expected_urls())[:5]
        (crawl,) = run_in_process({"urls": urls, "spider": "pages",
                                   "attrs": {"download_delay": delay},
                                   "settings": ADDON}, tmp_path / "crawl.log")
        gap = site.min_gap(0)
    assert crawl["pages"] == 5, crawl
    assert crawl["download_delay"] == delay  # Scrapy applied the attribute: nothing overrode it
    assert gap >= delay * 0.9, f"requests {gap:.3f}s apart, download_delay is {delay}s"
    # one wait per request: Scrapy's slot (same delay, no jitter) adds none to the gate's
    starts = crawl["starts"]
    gaps = sorted(b - a for a, b in zip(starts, starts[1:]))
    assert gaps[len(gaps) // 2] < delay * 1.5, gaps


def test_progress_counts_items_of_any_type(tmp_path: Path) -> None:
    with SiteServer(hosts=1, pages_per_host=4, seed=3) as site:
        (crawl,) = run_in_process({"urls": site.base_urls[:1], "spider": "odd",
                                   "settings": ADDON}, tmp_path / "crawl.log")
    log = (tmp_path / "crawl.log").read_text()
    assert crawl["errors"] == [], crawl
    assert crawl["items"] == 6, crawl
    summary = log.split("Crawl summary:", 1)[1]
    for kind, n in (("posts", 1), ("threads", 1), ("records", 1), ("others", 3)):
        assert any(line.split() == [kind, str(n)] for line in summary.splitlines()), summary[:800]


def test_the_addons_middlewares_work_before_any_crawl_starts() -> None:
    """Scrapy's own tests drive middleware managers on a crawler whose engine is not set
    (Scrapy 2.19 raises on ``crawler.engine`` then): no node, so they pass requests on."""
    from scrapy import Request  # noqa: PLC0415
    from scrapy.http import HtmlResponse  # noqa: PLC0415
    from scrapy.utils.test import get_crawler  # noqa: PLC0415

    from crawler.node.middleware import RepeatLinkFilter  # noqa: PLC0415

    crawler = get_crawler(settings_dict={"ADDONS": {"crawler.addon.ClusterAddon": 0}})
    middleware = RepeatLinkFilter.from_crawler(crawler)
    request = Request("http://example.com/a")
    response = HtmlResponse("http://example.com/", body=b"<html></html>")
    assert middleware.get_processed_request(request, response) is request


def test_a_projects_own_stop_download_reaches_its_errback(tmp_path: Path) -> None:
    """Only the add-on's own stop (a binary page) becomes an IgnoreRequest outcome."""
    with SiteServer(hosts=1, pages_per_host=4, seed=3) as site:
        (crawl,) = run_in_process({"urls": site.base_urls[:1], "spider": "stopper",
                                   "settings": ADDON}, tmp_path / "crawl.log")
    assert crawl["errback_failures"] == ["StopDownload"], crawl


def test_depth_limit_stays_as_set_and_the_frontier_counts_what_it_drops(tmp_path: Path) -> None:
    with SiteServer(hosts=1, pages_per_host=12, seed=3) as site:
        (crawl,) = run_in_process({"urls": site.base_urls[:1],
                                   "settings": {**ADDON, "DEPTH_LIMIT": 1}},
                                  tmp_path / "crawl.log")
        reachable = len(site.expected_urls())
    assert crawl["depth_limit"] == 1, crawl  # Scrapy's setting, as the project set it
    assert crawl["stats"]["request_depth_max"] >= 1, crawl  # depths still recorded
    assert crawl["stats"]["outcomes/filtered/depth"] > 0, crawl  # dropped and counted
    assert 1 < crawl["pages"] < reachable, crawl
