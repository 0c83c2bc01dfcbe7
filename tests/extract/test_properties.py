"""Property tests: total functions never raise and keep their invariants on arbitrary input."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.dates import normalize_date
from crawler.encoding import decode_html
from crawler.profiles import REGISTRY
from crawler.profiles._utils import html_to_text, to_int

BASE = datetime(2024, 3, 2, 4, 0, tzinfo=UTC)
ZH_UNITS = st.sampled_from(["秒", "分钟", "小时", "天", "周"])
SECONDS = {"秒": 1, "分钟": 60, "小时": 3600, "天": 86400, "周": 604800}


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_normalize_date_is_total(text: str) -> None:
    value = normalize_date(text, base=BASE, tz="Asia/Shanghai")
    assert value is None or datetime.fromisoformat(value).tzinfo is not None


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=500), ZH_UNITS, st.booleans())
def test_chinese_relative_dates_count_back_from_fetch_time(n: int, unit: str, space: bool) -> None:
    raw = f"{n}{' ' if space else ''}{unit}前"
    value = normalize_date(raw, base=BASE, tz="Asia/Shanghai")
    assert value is not None
    assert BASE - datetime.fromisoformat(value) == timedelta(seconds=n * SECONDS[unit])


# Chinese text of a few words. (A page of one or two GBK characters can be valid UTF-8 as well,
# about 8% per character; then the header wins, as HTML says it should, and nothing can tell.)
CHINESE = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5), min_size=6, max_size=60)


@settings(max_examples=40, deadline=None)
@given(CHINESE)
def test_gbk_text_survives_a_lying_header(text: str) -> None:
    html = f'<html><head><meta charset="gbk"></head><body><p>{text}</p></body></html>'
    decoded, _ = decode_html(html.encode("gbk"), header_charset="utf-8")
    assert text in decoded


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["a=1", "sid=abc", "s=9f", "extra=page%3D1", "b=2", "PHPSESSID=x", "page=3"]), max_size=6)
)
def test_canonicalize_idempotent_and_drops_session_ids(params: list[str]) -> None:
    url = "http://forum.example/x.php?" + "&".join(params)
    for profile in REGISTRY.engines:
        once = profile.canonicalize(url)
        assert profile.canonicalize(once) == once
        for dropped in profile.drop_params:
            assert f"{dropped}=" not in once.split("?", 1)[-1].replace(f"_{dropped}=", "")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_html_to_text_is_total(html: str) -> None:
    text = html_to_text(html)
    assert text is None or text.strip()


@given(st.integers(min_value=0, max_value=10**9))
def test_to_int_reads_thousands_separators(n: int) -> None:
    assert to_int(f"{n:,}") == n
    assert to_int(f"Views: {n}") == n


@settings(max_examples=40, deadline=None)
@given(
    st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2030, 12, 31)),
    st.sampled_from(["{d.year}-{d.month}-{d.day} {d:%H:%M}", "{d:%Y/%m/%d %H:%M:%S}", "{d.year}年{d.month}月{d.day}日 {d:%H:%M}",
                     "{d:%m-%d-%Y, %I:%M %p}", "{d:%m-%d-%Y %H:%M}"]),
)
def test_numeric_fast_path_agrees_with_dateparser(moment: datetime, template: str) -> None:
    from crawler.dates import _parse_dateparser, _parse_numeric, _zone

    moment = moment.replace(microsecond=0)
    text = template.format(d=moment)
    fast = _parse_numeric(text, _zone("Asia/Shanghai"), "MDY")
    slow = _parse_dateparser(text, BASE.astimezone(_zone("Asia/Shanghai")), "Asia/Shanghai", None, "MDY")
    assert fast is not None and slow is not None
    assert fast == slow
    assert fast.replace(tzinfo=None, second=fast.second if "%S" in template else 0) == moment.replace(
        second=moment.second if "%S" in template else 0
    )
