"""Charset selection when the HTTP header lies, and the downloader middleware that applies it."""

from __future__ import annotations

import pytest
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from crawler.encoding import CharsetMiddleware, decode_html, detect_encoding

ZH = "抱歉，指定的主题不存在或已被删除或正在被审核。欢迎来到中文论坛，讨论爬虫、编码与日期。"
TW = "抱歉，指定的主題不存在或已被刪除。歡迎來到中文論壇，討論爬蟲、編碼與日期。"


def page(text: str, meta: str | None) -> str:
    head = f'<meta http-equiv="Content-Type" content="text/html; charset={meta}" />' if meta else ""
    return f"<html><head>{head}<title>{text[:4]}</title></head><body><p>{text}</p></body></html>"


@pytest.mark.parametrize(
    ("encoding", "text", "meta", "header", "want", "source"),
    [
        ("gbk", ZH, "gbk", "utf-8", "gb18030", "meta"),  # header lies, meta right
        ("gbk", ZH, "gb2312", None, "gb18030", "meta"),  # gb2312 label read as gb18030
        ("gbk", ZH, "gbk", "iso-8859-1", "gb18030", "meta"),  # latin-1 header decodes anything
        ("gb18030", ZH + "𠀀", "gb18030", "utf-8", "gb18030", "meta"),  # 4-byte GB18030 char
        ("big5", TW, "big5", "utf-8", "big5hkscs", "meta"),  # w3lib reads Big5 as its HKSCS superset
        ("utf-8", ZH, "gbk", "utf-8", "utf-8", "header"),  # meta lies, header right
        ("utf-8", ZH, None, None, "utf-8", "detected"),
    ],
)
def test_detect_encoding(
    encoding: str, text: str, meta: str | None, header: str | None, want: str, source: str
) -> None:
    body = page(text, meta).encode(encoding)
    assert detect_encoding(body, header_charset=header) == (want, source)
    decoded, _ = decode_html(body, header_charset=header)
    assert text in decoded
    assert "\ufffd" not in decoded


def test_detection_without_any_declaration_gbk() -> None:
    body = page(ZH * 3, None).encode("gbk")
    decoded, encoding = decode_html(body, header_charset="utf-8")
    assert ZH in decoded, encoding


def test_bom_wins() -> None:
    body = b"\xef\xbb\xbf" + page(ZH, "gbk").encode("utf-8")
    assert detect_encoding(body, header_charset="gbk")[0] == "utf-8"


def test_middleware_redecodes_lying_response() -> None:
    crawler = get_crawler()
    middleware = CharsetMiddleware.from_crawler(crawler)
    body = page(ZH, "gbk").encode("gbk")
    response = HtmlResponse(
        "http://example.test/", body=body, headers={"Content-Type": "text/html; charset=utf-8"}
    )
    assert ZH not in response.text  # what Scrapy alone would give
    fixed = middleware.process_response(Request(response.url), response)
    assert ZH in fixed.text
    assert crawler.stats.get_value("encoding/fixed/meta") == 1


def test_middleware_leaves_correct_response_alone() -> None:
    crawler = get_crawler()
    middleware = CharsetMiddleware.from_crawler(crawler)
    response = HtmlResponse(
        "http://example.test/",
        body=page(ZH, "utf-8").encode(),
        headers={"Content-Type": "text/html; charset=utf-8"},
    )
    assert middleware.process_response(Request(response.url), response) is response


def test_short_gbk_that_is_also_valid_utf8() -> None:
    # Found by hypothesis: the GBK bytes of "虺·" are valid UTF-8 (one unassigned code point).
    body = page("虺·", "gbk").encode("gbk")
    body.decode("utf-8")  # really decodes: the header alone cannot be caught lying
    assert detect_encoding(body, header_charset="utf-8") == ("gb18030", "meta")


def test_gbk_yi_that_reads_as_cyrillic_utf8() -> None:
    # Found by hypothesis: "一" is D2 BB in GBK, which is "һ" (U+04BB) in UTF-8.
    body = page("一一一一一一", "gbk").encode("gbk")
    assert "һ" in body.decode("utf-8")
    assert detect_encoding(body, header_charset="utf-8") == ("gb18030", "meta")
