"""Dates inside a post record: machine attributes first, then display text.

A candidate is a node plus where its value sits (an attribute or the text). Ranks, best first:
``datetime``/``content``/``data-*`` attributes (machine values), then a ``title`` attribute
(engines that show "8 Mar '24" or "3 天前" keep the full date there), then the text. Among
equals, a value with a clock time beats a date-only value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache

from lxml import etree

from crawler.dates import normalize_date
from crawler.learn.dom import element_text
from crawler.learn.words import day_words, languages_of, month_words

__all__ = [
    "FIND_DATE",
    "DateCandidate",
    "date_candidates",
    "date_order",
    "find_date",
    "has_clock",
    "looks_like_date",
    "parse_date",
    "prepare",
    "stated_offset",
    "to_ymd",
]

def _date_shape_source() -> str:
    # Month names and abbreviations of every language dateparser knows ("Juni", "juil",
    # "März"); "Heute", "Aujourd'hui", "gestern"… only with a clock time after them.
    months, days = month_words(), day_words()
    return (
    r"\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b|"
    rf"(?<!\w)(?:{months})\.?\s+\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\.?(?:\s+|-)(?:{months})(?!\w)|"
    rf"(?<!\w)(?:{days})\s*,?\s*(?:\w{{1,5}}\s+)?\d{{1,2}}[:：]\d{{2}}|"
    r"\b(?:today|yesterday|ago|just now)\b|\b(?:vor|il y a|hace)\s+\d+\s+\w{3,12}|"
    r"昨天|前天|今天|刚刚|剛剛|分钟前|分鐘前|小时前|小時前|天前|秒前|"
    r"\d{4}-\d{2}-\d{2}T\d{2}|^\d{10}(?:\d{3})?$"
    )


_CLOCK = re.compile(
    r"\d{1,2}[:：]\d{2}|T\d{2}:\d{2}|^\d{10}(?:\d{3})?$|\bago\b|前$|刚刚|剛剛|\d\s*[ap]\.?m\b"
    r"|\bnoon\b|\bmidnight\b", re.I
)
_MACHINE_ATTRS = ("datetime", "content", "data-time", "data-timestamp", "data-date",
                  "data-datetime", "data-created")
_SKIP_CLASS = re.compile(r"edit|updat|modif|last_?post|lastpost", re.IGNORECASE)
_BASE = datetime(2030, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class DateCandidate:
    node: etree._Element
    #: ``@name`` for an attribute, ``text()`` for the node's own text, ``.`` for all its text.
    value: str
    raw: str
    rank: int  # 0 machine attribute, 1 title attribute, 2 text, 3 a date inside a text
    regex: str | None = None

    @property
    def clock(self) -> bool:
        return has_clock(self.raw)


#: The date shapes without a digit: tried alone on texts without one (most texts of a page).
_WORDS_ONLY = re.compile(r"\b(?:today|yesterday|just now)\b|昨天|前天|今天|刚刚|剛剛",
                         re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def looks_like_date(text: str) -> bool:
    if not 4 <= len(text) <= 80:
        return False
    if not _DIGIT.search(text):
        return bool(_WORDS_ONLY.search(text))
    return bool(_regexes()[0].search(text))


def has_clock(text: str) -> bool:
    return bool(_CLOCK.search(text))


_LEAD = r"^(?:(?:发表于|發表於|发布于|發佈於|posted(?:\s+on)?|on|at|date|日期)[:：]?\s*|[«(\[]\s*)?"
_TAIL = r"\s*[»)\]]?$"
_TIME = (
    r"(?:,?\s*(?:at\s+|um\s+|à\s+|a\s+las\s+|alle\s+|-\s*)?(?:\d{1,2}[:：]\d{2}(?:[:：]\d{2})?\s*(?:[ap]\.?m\.?|uhr\b|h\b)?|"
    r"\d{1,2}\s*[ap]\.?m\.?|noon|midnight))?"
)
def _core_source() -> str:
    months, days = month_words(), day_words()
    return (
    r"(?:"
    # ISO first, with its offset, a space for the "T" too ("2024-03-04 10:00:00+00:00",
    # a timeago title): the date-then-weekday branch would stop at "2024-03-04 10".
    + r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|\s?[+-]\d{2}:?\d{2}(?!\d))?"
    + r"|\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?(?:\s*(?:\(|（)?[^\W\d_]{1,3}(?:\)|）)?)?"
    + _TIME
    + r"|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}" + _TIME
    + rf"|(?:\w{{3,9}},?\s+)?(?:{months})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+"
      rf"(?:\d{{4}}|'\d{{2}})" + _TIME
    + rf"|(?:\w{{2,9}}\.?,?\s+)?\d{{1,2}}(?:st|nd|rd|th)?\.?(?:\s+|-)(?:{months})\.?,?(?:\s+|-)"
      rf"(?:\d{{4}}|'\d{{2}}|(?<=-)\d{{2}})"
    + r"(?::\d{2})?" + _TIME
    + rf"|(?:{months})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?" + _TIME
    + rf"|(?:\w{{2,9}}\.?,?\s+)?\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:{months})\.?" + _TIME
    + r"|\d{10}(?:\d{3})?"
    + r"|(?:today|yesterday)" + _TIME
    + rf"|(?:{days})\s*,?\s*(?:\w{{1,5}}\s+)?\d{{1,2}}[:：]\d{{2}}(?:\s*uhr\b)?"
    + r"|(?:vor|il y a|hace|fa)\s+\d+\s+\w{3,12}|\d+\s+\w{3,12}\s+(?:her|fa)\b"
    + r"|(?:今天|昨天|前天)\s*\d{1,2}[:：]\d{2}(?::\d{2})?"
    + r"|\d+\s*(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago"
      r"|(?:an?|one)\s+\w+\s+ago|just now"
    + r"|\d+\s*(?:秒|分钟|分鐘|小时|小時|天|周|週|个月|個月|年)前|半小时前|刚刚|剛剛"
    + r")"
    )


@cache
def _regexes() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The date shape, a whole date and a date inside a text, compiled on first use: they
    hold every language's month names (about 2 s to compile), which importing the profiles
    (every ``scrapy`` command) must not pay."""
    core = _core_source()
    return (re.compile(_date_shape_source(), re.IGNORECASE),
            re.compile(_LEAD + core + _TAIL, re.IGNORECASE),
            re.compile(r"(?i)(?<![\w/-])(" + core + r")(?![\w/-])"))


def prepare() -> None:
    """Compile the date regexes now: a spider that may read dates calls it as it is built,
    before its crawl starts, so that the first page read does not block the reactor for
    seconds (long enough for a short CRAWLER_NODE_TIMEOUT to cut the node off)."""
    _regexes()

#: The regex of a date rule that reads a date inside a longer text ("#1 by alice on 2024-03-14"):
#: a name, not the pattern, since the pattern holds the month names of every language and a
#: template must stay small (:func:`find_date` is what it stands for).
FIND_DATE = "(date in text)"


_LEADING_WORD = re.compile(r"^[^\W\d_]+\.?,?\s+(?=\w)")


def find_date(text: str) -> str | None:
    """The longest date inside ``text``, the first of equals (a post number before a weekday,
    "#4 Sat Mar 02, 2024 12:21 am", reads as a short date in some language: the whole date is
    longer); a word before it that is no weekday ("Zitieren 20. April 2020", a title's last
    word before "March 28, 2024") is left out."""
    matches = list(_regexes()[2].finditer(text))
    if not matches:
        return None
    value = max(matches, key=lambda m: len(m.group(1))).group(1)
    if _LEADING_WORD.match(value) and not parse_date(value):
        value = _LEADING_WORD.sub("", value)
    return value


@lru_cache(maxsize=4096)
def parse_date(text: str) -> str | None:
    """The ISO form of ``text`` if the whole of it is one date (relative forms count from a
    fixed base); text around a date ("#1 03-01-2024", "… | 只看该作者") disqualifies it, so
    the innermost element holding only the date is the one found."""
    text = text.strip()
    if len(text) > 60 or not _regexes()[1].match(text):
        return None
    try:
        # Month first unless that cannot be (13/03/2024): the site's order is learned later.
        return (normalize_date(text, base=_BASE, date_order="MDY", languages=("en", "zh"))
                or normalize_date(text, base=_BASE, date_order="DMY", languages=("en", "zh"))
                # Other languages ("14. Juni 2020", "Aujourd'hui à 10:23"): those its words
                # belong to.
                or _in_own_language(text))
    except (ValueError, OverflowError):
        return None


def _in_own_language(text: str) -> str | None:
    languages = languages_of(text)
    if languages is None and not re.search(r"[^\W\d_]{2}", text):
        return None
    # Words that name no month or day ("vor 3 Stunden", "um 15:25 Uhr"): dateparser detects.
    return normalize_date(text, base=_BASE, date_order="DMY", languages=languages)


def date_candidates(record: etree._Element) -> list[DateCandidate]:
    """Every date inside ``record`` (the record's own attributes included), document order."""
    found: list[DateCandidate] = []
    for node in record.iter():
        if not isinstance(node.tag, str) or node.tag in ("script", "style"):
            continue
        if _SKIP_CLASS.search((node.get("class") or "") + " " + (node.get("id") or "")):
            continue
        if _joined_label(node):
            continue
        for attr in _MACHINE_ATTRS:
            value = node.get(attr)
            if value and _machine_date(attr, node, value):
                # A date the reader sees beats one in an invisible <meta> (it may be another date).
                found.append(DateCandidate(node, f"@{attr}", value.strip(),
                                           1 if node.tag == "meta" else 0))
        title = (node.get("title") or "").strip()
        if title and parse_date(title):
            found.append(DateCandidate(node, "@title", title, 1))
        elif 10 <= len(title) <= 60 and (value := find_date(title)) and parse_date(value):
            # A date with more around it ("2024-03-04 10:00:00+00:00 +0000": a timeago
            # plugin's title on an <abbr> or <span>, the text shown being "3 days ago").
            found.append(DateCandidate(node, "@title", value, 1, FIND_DATE))
        if node is record or len(node) > 4:
            continue
        text = element_text(node)
        if text and looks_like_date(text) and parse_date(text):
            found.append(DateCandidate(node, ".", text, 2))
        elif node.text and node.text.strip() and parse_date(node.text.strip()):
            found.append(DateCandidate(node, "text()", node.text.strip(), 2))
        elif text and len(text) <= 100 and len(node) <= 6:
            # The first date of a line ("20. April 2020 11:17 (zuletzt bearbeitet: …)"), unless
            # a label says it is the member's ("Mitglied seit: 21. Januar 2013").
            value = find_date(text)
            if value and not _labels(text[: text.find(value)]) and parse_date(value):
                found.append(DateCandidate(node, ".", value, 3, FIND_DATE))
    return found


#: Labels of the member's own dates in a user column: "Joined", "Registriert", "Inscrit le".
_JOINED = re.compile(
    r"join|regist|member since|mitglied seit|dabei seit|beigetreten|anmeldung|inscri|membre depuis|"
    r"miembro desde|iscritto|lid sinds|last (?:seen|visit|active)|zuletzt online|letzter besuch|"
    r"dernière visite",
    re.IGNORECASE,
)


def _joined_label(node: etree._Element) -> bool:
    """Whether the text just before ``node`` (or its own start) labels a member's date."""
    before = re.split(r"\d", node.text or "", maxsplit=1)[0][-30:]  # its own text up to the date
    previous = node.getprevious()
    if previous is not None:
        before = element_text(previous)[-30:] + " " + (previous.tail or "") + " " + before
    else:
        parent = node.getparent()
        if parent is not None:
            before = (parent.text or "")[-30:] + " " + before
            grand_previous = parent.getprevious()
            if grand_previous is not None and len(element_text(parent)) < 60:
                before = element_text(grand_previous)[-30:] + " " + before
    return _labels(before)


def _labels(before: str) -> bool:
    """Whether ``before`` ends with a member-date label: nothing but punctuation and a word
    such as "on" or "le" after it ("Mitglied seit 2011" labels its own year, not what follows)."""
    match = None
    for match in _JOINED.finditer(before[-40:]):
        pass
    return match is not None and not re.search(r"\d", before[-40:][match.end():])


def _machine_date(attr: str, node: etree._Element, value: str) -> bool:
    if attr == "content" and node.get("itemprop") not in ("datePublished", "dateCreated",
                                                          "uploadDate"):
        return False
    return parse_date(value.strip()) is not None


_NUMERIC = re.compile(r"(?<![\d/.-])(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})(?![\d/.-])")


def date_order(values: list[str]) -> str | None:
    """``"DMY"`` or ``"MDY"`` for a site's numeric display dates (``08/03/2024 14:05``): a
    first number above 12 makes the site day-first, a second one month-first; with neither,
    dotted dates (``8.3.2024``) are day-first, as everywhere they are used. ``None``: no
    numeric day-month dates."""
    pairs = [(int(m.group(1)), int(m.group(3)), m.group(2)) for v in values
             if (m := _NUMERIC.search(v))]
    if not pairs:
        return None
    if any(a > 12 for a, _, _ in pairs):
        return "DMY"
    if any(b > 12 for _, b, _ in pairs):
        return "MDY"
    return "DMY" if all(sep == "." for _, _, sep in pairs) else None


#: "GMT+8", "UTC+08:00", "GMT -5": the zone a page says its times are in.
_STATED = re.compile(r"\b(?:GMT|UTC)\s?([+\-\u2212])\s?(\d{1,2})(?::?(\d{2}))?\b")
#: A date that carries its own offset or zone.
_OWN_ZONE = re.compile(r"(?:[+\-]\d{2}:?\d{2}|Z|\b(?:GMT|UTC)\b.*)$")
#: Characters at the end of a page where it states its zone (the footer).
_FOOTER = 1500


def stated_offset(root: etree._Element) -> str | None:
    """The UTC offset the page's footer states its times in ("All times are GMT -5", Discuz!'s
    "GMT+8, 2024-3-5 10:00", phpBB's "UTC+08:00"), as ``+08:00``; ``None`` when it states none
    or more than one."""
    body = root.find("body")
    found = {(m.group(1), int(m.group(2)), int(m.group(3) or 0))
             for m in _STATED.finditer(element_text(body if body is not None else root)[-_FOOTER:])}
    if len(found) != 1:
        return None
    sign, hours, minutes = found.pop()
    return f"{'-' if sign != '+' else '+'}{hours:02d}:{minutes:02d}" if hours <= 14 else None


def _with_offset(raw: str | None, offset: str) -> str | None:
    """A dated time as ISO wall clock plus the site's offset (``2009-05-08T23:56:00-08:00``:
    the day as shown, the instant it was); other forms ("Today, 10:23") with the offset after."""
    if raw and _YEAR.search(raw):
        order = "YMD" if _ISO_DAY.match(raw) else None
        wall = normalize_date(raw, base=datetime.now(UTC), date_order=order)
        if wall and wall.endswith("+00:00"):
            return wall[:-6] + offset
    return f"{raw.strip()} {offset}" if raw else raw


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_ISO_DAY = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}")


def to_ymd(raw: str | None, order: str | None, offset: str | None = None) -> str | None:
    """On a day-first site, ``raw`` with its numeric date rewritten year first (``08/03/2024
    14:05`` -> ``2024-03-08 14:05``), so the normalizer, month-first where a date is ambiguous,
    cannot read it the other way round; two-digit years are this century's. Other dates are
    kept as shown. ``offset``: the zone the site states, for a time shown without one (a day
    alone stays a day)."""
    if raw and offset and has_clock(raw) and not _OWN_ZONE.search(raw.strip()):
        return _with_offset(to_ymd(raw, order), offset)
    if not raw or order != "DMY":
        return raw
    match = _NUMERIC.search(raw)
    if not match:
        return raw
    first, second, year = int(match.group(1)), int(match.group(3)), match.group(4)
    day, month = (first, second) if order == "DMY" else (second, first)
    year = year if len(year) == 4 else f"20{year}"
    return f"{raw[: match.start()]}{year}-{month:02d}-{day:02d}{raw[match.end():]}"
