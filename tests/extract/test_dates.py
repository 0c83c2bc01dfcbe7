"""Date normalization over real-world forum and blog formats (Chinese and English)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from crawler.dates import normalize_date

# Fetch time: 2024-03-02 12:00 in Shanghai (a Saturday).
BASE = datetime(2024, 3, 2, 4, 0, tzinfo=UTC)
SH = "Asia/Shanghai"

CASES = [
    # (raw, tz, date_order, expected) — sources in the comments
    ("3 天前", SH, None, "2024-02-28T12:00:00+08:00"),  # Discuz relative
    ("3&nbsp;天前".replace("&nbsp;", "\xa0"), SH, None, "2024-02-28T12:00:00+08:00"),
    ("昨天 12:30", SH, None, "2024-03-01T12:30:00+08:00"),  # Discuz
    ("昨天\xa008:18", SH, None, "2024-03-01T08:18:00+08:00"),
    ("前天 08:18", SH, None, "2024-02-29T08:18:00+08:00"),  # leap day
    ("今天 09:05", SH, None, "2024-03-02T09:05:00+08:00"),
    ("发表于 2024-3-2 08:18", SH, None, "2024-03-02T08:18:00+08:00"),  # Discuz absolute
    ("發表於 2024-3-2 08:18", SH, None, "2024-03-02T08:18:00+08:00"),  # Big5 Discuz
    ("发表于 2023-12-31 23:59:59", SH, None, "2023-12-31T23:59:59+08:00"),
    ("刚刚", SH, None, "2024-03-02T12:00:00+08:00"),
    ("剛剛", SH, None, "2024-03-02T12:00:00+08:00"),
    ("半小时前", SH, None, "2024-03-02T11:30:00+08:00"),
    ("1 分钟前", SH, None, "2024-03-02T11:59:00+08:00"),
    ("15分钟前", SH, None, "2024-03-02T11:45:00+08:00"),
    ("2 小时前", SH, None, "2024-03-02T10:00:00+08:00"),
    ("3 小時前", SH, None, "2024-03-02T09:00:00+08:00"),
    ("30 秒前", SH, None, "2024-03-02T11:59:30+08:00"),
    ("1 周前", SH, None, "2024-02-24T12:00:00+08:00"),
    ("2024年3月2日 08:18", SH, None, "2024-03-02T08:18:00+08:00"),  # phpwind, blogs
    ("2024/03/02 08:18", SH, None, "2024-03-02T08:18:00+08:00"),
    ("最后回复于 2024-2-1 15:00", SH, None, "2024-02-01T15:00:00+08:00"),
    ("Today, 10:33 PM", "America/New_York", "MDY", "2024-03-01T22:33:00-05:00"),  # vBulletin 4
    ("Yesterday, 03:10 PM", "America/New_York", "MDY", "2024-02-29T15:10:00-05:00"),
    ("Yesterday at 3:10 PM", "UTC", None, "2024-03-01T15:10:00+00:00"),  # XenForo
    ("Today at 1:05 AM", "UTC", None, "2024-03-02T01:05:00+00:00"),
    ("02-28-2013, 10:33 PM", "America/New_York", "MDY", "2013-02-28T22:33:00-05:00"),  # vB4
    ("28-02-2013, 22:33", "Europe/London", "DMY", "2013-02-28T22:33:00+00:00"),  # vB4 EU
    ("Sat Mar 02, 2024 8:18 am", "UTC", None, "2024-03-02T08:18:00+00:00"),  # phpBB 3 default
    ("Mar 2, 2024 at 8:18 AM", "UTC", None, "2024-03-02T08:18:00+00:00"),  # XenForo title
    ("March 2, 2024, 08:18:00 AM", "UTC", None, "2024-03-02T08:18:00+00:00"),  # SMF
    ("« Reply #3 on: March 2, 2024, 08:18:00 AM »", "UTC", None, "2024-03-02T08:18:00+00:00"),  # SMF
    ("03-02-2024, 08:18 AM", "UTC", "MDY", "2024-03-02T08:18:00+00:00"),  # MyBB title
    ("5 minutes ago", "UTC", None, "2024-03-02T03:55:00+00:00"),
    ("2 hours ago", "UTC", None, "2024-03-02T02:00:00+00:00"),
    ("2024-03-01T10:00:00Z", SH, None, "2024-03-01T18:00:00+08:00"),  # RFC 3339 (phpBB time@datetime)
    ("2024-03-01T10:00:00+00:00", "UTC", None, "2024-03-01T10:00:00+00:00"),  # XenForo
    ("2024-03-01T10:00:00.123Z", "UTC", None, "2024-03-01T10:00:00+00:00"),  # Discourse JSON
    ("2024-03-01 10:00:00", SH, None, "2024-03-01T10:00:00+08:00"),  # naive -> site zone
    ("1709366400", "UTC", None, "2024-03-02T08:00:00+00:00"),  # Discuz dbdateline
    ("1709366400000", "UTC", None, "2024-03-02T08:00:00+00:00"),  # NodeBB ms
    ("Sat, 02 Mar 2024 08:18:00 +0000", "UTC", None, "2024-03-02T08:18:00+00:00"),  # RSS
    ("Posted on March 2, 2024", "UTC", None, "2024-03-02T00:00:00+00:00"),  # WordPress themes
]


@pytest.mark.parametrize(("raw", "tz", "order", "expected"), CASES)
def test_formats(raw: str, tz: str, order: str | None, expected: str) -> None:
    assert normalize_date(raw, base=BASE, tz=tz, date_order=order) == expected


def test_at_least_thirty_formats() -> None:
    assert len(CASES) >= 30


def test_numbers_are_timestamps() -> None:
    assert normalize_date(1709366400, base=BASE, tz="UTC") == "2024-03-02T08:00:00+00:00"
    assert normalize_date(1709366400123, base=BASE, tz="UTC") == "2024-03-02T08:00:00+00:00"


def test_relative_days_follow_the_site_zone_not_utc() -> None:
    # 01:00 in Shanghai on 2 March is still 1 March in UTC: "昨天" must be 1 March locally.
    base = datetime(2024, 3, 1, 17, 0, tzinfo=UTC)
    assert normalize_date("昨天 12:30", base=base, tz=SH) == "2024-03-01T12:30:00+08:00"


@pytest.mark.parametrize("raw", [None, "", "   ", "楼主", "not a date at all", "只看该作者"])
def test_not_dates(raw: str | None) -> None:
    assert normalize_date(raw, base=BASE, tz="UTC") is None
