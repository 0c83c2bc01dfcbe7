"""Icon elements are no part of a name: an icon font's ligature word draws a glyph."""

import pytest

from crawler.learn.dom import element_text, parse


def text(html: str) -> str:
    return element_text(parse(f"<html><body><a id='x'>{html}</a></body></html>").find(".//a"))


@pytest.mark.parametrize("html", [
    '<span class="material-icon">chevron_right</span> Web Scraping',
    '<span class="material-icons-outlined">label</span>Web Scraping',
    '<i class="fa fa-folder"></i> Web Scraping',
    '<span class="glyphicon glyphicon-home"></span>Web Scraping',
    '<span aria-hidden="true">›</span> Web Scraping',
    '<svg viewBox="0 0 8 8"><text>arrow</text></svg>Web Scraping',
    '<span class="icon-home" aria-hidden="true">\u2302</span><span>Web Scraping</span>',
])
def test_icon_text_left_out(html):
    assert text(html) == "Web Scraping"


@pytest.mark.parametrize(("html", "expected"), [
    ("<i>Web</i> Scraping", "Web Scraping"),  # italics, not an icon
    ('<span class="icon-label">Web Scraping</span>', "Web Scraping"),  # two words: a label
    ('<span class="fa-wrap"><b>Web</b></span> Scraping', "Web Scraping"),  # holds elements
    ('<span class="iconic">Web</span> Scraping', "Web Scraping"),  # not an icon font's class
    ('<span class="icon icon-comment-add">Reply</span>', "Reply"),  # a sprite beside its label
    ('<span aria-hidden="true">Web</span> Scraping', "Web Scraping"),  # a word, not a glyph
])
def test_text_that_only_looks_like_an_icon_kept(html, expected):
    assert text(html) == expected
