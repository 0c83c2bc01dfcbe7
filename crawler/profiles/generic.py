"""The fallback for forums whose engine has no profile.

Two strategies, in order, on every page:

1. **schema.org** (via extruct, JSON-LD and microdata): ``DiscussionForumPosting`` /
   ``SocialMediaPosting`` (the opening post) and its ``comment`` list of ``Comment`` objects.
2. **Repeated post blocks** (hand-written heuristic, no library does this for fragments):
   elements whose id looks like a post id (``p123``, ``post_123``, ``elComment_123``,
   ``js-post-123``, ``msg123``), else the largest group of same-shaped siblings. A block counts
   only if it holds a date and little of its text is link text (thread-list rows are mostly
   links, posts are mostly prose).

Links: every same-site link that is not a permalink, a user page or an action is followed, so
the crawl walks index -> boards -> threads without knowing the URL scheme. Thread ids come from
``id=``/``tid=``/``t=``/``topic=`` parameters or the first number of the path.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from w3lib.url import canonicalize_url, url_query_cleaner

from crawler.items import Author, Board
from crawler.profiles._utils import join_text
from crawler.profiles.base import ForumProfile, PageCursor, PageKind
from crawler.profiles.records import PostRecord, ThreadPage, ThreadRecord, ThreadRef

if TYPE_CHECKING:
    from parsel import Selector
    from scrapy.http import Response, TextResponse

logger = logging.getLogger(__name__)

POSTING_TYPES = {"DiscussionForumPosting", "SocialMediaPosting"}
_POST_ID = re.compile(
    r"^(?:[a-z]+[_-]?)?(?:p|post|pid|msg|message|comment|reply|entry)[_-]?(\d+)$", re.IGNORECASE
)
_ID_IN_URL = re.compile(r"(?:comment|pid|post|msg|p)[=_-]?(\d+)", re.IGNORECASE)
_DATE = re.compile(
    r"\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\b\d{1,2}:\d{2}\b|"
    r"\b(?:today|yesterday|ago)\b|昨天|前天|今天|刚刚|分钟前|小时前|天前",
    re.IGNORECASE,
)
_BODY_HINT = re.compile(
    r"postmsg|post_?body|post_?content|message|content|body|text|entry|richtext", re.IGNORECASE
)
_NOT_BODY = re.compile(r"sig|meta|author|footer|header|title|user|profile|avatar", re.IGNORECASE)
_AUTHOR_HREF = re.compile(r"profile|member|user|space|uid=|[?&;]u=|author", re.IGNORECASE)
_FLOOR = re.compile(r"#\s*(\d{1,6})\b")
_EDITED = re.compile(r"last edited|edited by|最后由|编辑于|last modified", re.IGNORECASE)
_DENY = re.compile(
    r"login|logout|register|signup|search|profile|member|userlist|/user|uid=|space|misc\.php|help|rules|"
    r"action=|do=|mode=|goto=|findpost|findcomment|showpost|lastpost|pid=|replytocom|newtopic|newthread|"
    r"post\.php|reply|edit|delete|report|rss|feed|\.xml|\.(?:css|js|png|jpe?g|gif|svg|ico|zip|pdf)(?:$|\?)",
    re.IGNORECASE,
)
_POST_FRAGMENT = re.compile(r"#(?:p|post|pid|msg|comment)[-_]?\d+", re.IGNORECASE)
_TITLE_SEP = re.compile(r"\s+[-|/–—»]\s+")
_THREAD_PARAMS = ("tid", "t", "topic", "thread", "threadid", "id")
_PAGE_PARAMS = ("p", "page", "start", "offset", "pg")
_NOISE_CLASS = re.compile(
    r"^(?:odd|even|alt|row\w*|bg\d|first\w*|last\w*|new|old|parent|depth-\d+|\w*\d+\w*)$", re.IGNORECASE
)


class Generic(ForumProfile):
    """The last fallback: it reads any page, so it accepts every start page.

    It cannot tell index, board and thread pages apart, so every page is a
    :attr:`~crawler.profiles.base.PageKind.PAGE`: its posts are read if it has any
    (:meth:`parse_thread`) and every link is followed as another page (:meth:`board_links`).
    Stats: ``generic/pages/<schema|blocks>``.
    """

    name = "generic"
    fallback_order = 1000

    @classmethod
    def detect(cls, response: Response) -> bool:
        return True

    def classify(self, url: str) -> PageKind:
        return PageKind.PAGE

    def board_links(self, response: TextResponse) -> list[PageCursor]:
        """Every same-site link that is not a permalink, a user page or an action."""
        return [PageCursor(url=url) for url in self.follow_links(response)]

    def thread_refs(self, response: TextResponse, cursor: PageCursor) -> list[ThreadRef]:
        return []  # no thread list is known: threads are reached as pages

    def next_page(self, response: TextResponse, cursor: PageCursor) -> PageCursor | None:
        return None  # pagination links are followed as pages

    def parse_thread(self, response: TextResponse, cursor: PageCursor, ref: ThreadRef | None) -> ThreadPage:
        thread_id = generic_thread_id(response.url)
        posts = self.schema_posts(response, thread_id)
        strategy = "schema" if posts else None
        if not posts:
            posts = self.block_posts(response, thread_id)
            strategy = "blocks" if posts else None
        thread = self.generic_thread(response, thread_id, posts) if posts else None
        stats = [f"generic/pages/{strategy}"] if strategy else []
        return ThreadPage(thread=thread, posts=posts, next=None, stats=stats)

    # -- schema.org ----------------------------------------------------------------------------
    def schema_posts(self, response: TextResponse, thread_id: str) -> list[PostRecord]:
        # imported on first use: it pulls in rdflib, mf2py and bs4 (a quarter of a
        # second), which every `scrapy` command would pay for when loading spiders
        import extruct  # noqa: PLC0415

        try:
            data = extruct.extract(
                response.text, base_url=response.url, syntaxes=["json-ld", "microdata"], uniform=True
            )
        except Exception:
            logger.debug("extruct failed on %(url)s", {"url": response.url}, exc_info=True)
            return []
        postings = [item for items in data.values() for item in _walk(items) if _type(item) & POSTING_TYPES]
        posts = []
        for posting in postings:
            posts.append(self._schema_post(posting, response, thread_id, opening=True))
            for comment in _as_list(posting.get("comment")):
                if isinstance(comment, dict) and "Comment" in _type(comment):
                    posts.append(self._schema_post(comment, response, thread_id, opening=False))
        return [p for p in posts if p.body_html]

    def _schema_post(
        self, item: dict[str, Any], response: TextResponse, thread_id: str, opening: bool
    ) -> PostRecord:
        url = item.get("url") or item.get("@id") or response.url
        match = (
            _ID_IN_URL.search(urlsplit(str(url)).query + "#" + urlsplit(str(url)).fragment)
            if not opening
            else None
        )
        text = item.get("text") or item.get("articleBody") or ""
        author = _first(item.get("author"))
        return PostRecord(
            post_id=match.group(1) if match else ("op" if opening else _digest(text)),
            thread_id=thread_id,
            url=response.urljoin(str(url)),
            position=1 if opening else item.get("position"),
            author=Author(name=author.get("name") if isinstance(author, dict) else author, id=None),
            created_raw=item.get("dateCreated") or item.get("datePublished"),
            body_html="".join(f"<p>{_escape(line)}</p>" for line in str(text).splitlines() if line.strip())
            or None,
            quoted_post_ids=[],
            edited=bool(item.get("dateModified") and item.get("dateModified") != item.get("dateCreated")),
        )

    # -- repeated blocks -----------------------------------------------------------------------
    def block_posts(self, response: TextResponse, thread_id: str) -> list[PostRecord]:
        blocks = _id_blocks(response) or _sibling_blocks(response)
        return [self._block_post(block, response, thread_id) for block in blocks]

    def _block_post(self, block: Selector, response: TextResponse, thread_id: str) -> PostRecord:
        block_text = join_text(block) or ""
        post_id = _POST_ID.match(block.attrib.get("id", ""))
        floor = _FLOOR.search(block_text)
        author_link = next(
            (a for a in block.css("a[href]") if _AUTHOR_HREF.search(a.attrib["href"]) and join_text(a)), None
        )
        author = join_text(author_link) if author_link is not None else None
        body = _body_of(block, author_link.attrib["href"] if author_link is not None else None)
        return PostRecord(
            post_id=post_id.group(1) if post_id else _digest(block_text),
            thread_id=thread_id,
            url=canonicalize_url(response.url) + (f"#{block.attrib['id']}" if block.attrib.get("id") else ""),
            position=int(floor.group(1)) if floor else None,
            author=Author(name=author, id=None),
            created_raw=block.css("time::attr(datetime)").get() or _date_text(block, body),
            body_html="".join(body.xpath("node()").getall()).strip() if body is not None else None,
            quoted_post_ids=[],
            edited=bool(_EDITED.search(block_text)),
        )

    # -- thread and links ----------------------------------------------------------------------
    def generic_thread(self, response: TextResponse, thread_id: str, posts: list[PostRecord]) -> ThreadRecord:
        # "<thread> - <forum>" is the near-universal <title> shape; the <h1> is often the site name.
        title = _TITLE_SEP.split(join_text(response.css("title")) or "")[0].strip() or join_text(
            response.css("h1")[-1:]
        )
        opening = next((p for p in posts if p.position == 1), None)
        return ThreadRecord(
            thread_id=thread_id,
            url=thread_url(response.url),
            title=title,
            board=Board(),
            author=opening.author if opening else Author(),
            created_raw=opening.created_raw if opening else None,
        )

    def follow_links(self, response: TextResponse) -> list[str]:
        host = urlsplit(response.url).netloc
        links = []
        for href in response.css("a[href]::attr(href)").getall():
            if href.startswith(("javascript:", "mailto:", "#")) or _POST_FRAGMENT.search(href):
                continue
            url = response.urljoin(href)
            if urlsplit(url).netloc != host or _DENY.search(urlsplit(url).path + "?" + urlsplit(url).query):
                continue
            links.append(canonicalize_url(url))
        return list(dict.fromkeys(links))


def generic_thread_id(url: str) -> str:
    """A thread id from the URL: a thread-ish query parameter, else the first number in the path."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    for name in _THREAD_PARAMS:
        if params.get(name, "").isdigit():
            return params[name]
    number = re.search(r"\d+", parts.path)
    return number.group(0) if number else _digest(thread_url(url))


def thread_url(url: str) -> str:
    """The URL without page parameters (``p=``, ``page=``, ``/page/2/``)."""
    cleaned = url_query_cleaner(url, _PAGE_PARAMS, remove=True)
    cleaned = re.sub(r"/page[/-]?\d+/?$", "/", cleaned)
    return canonicalize_url(cleaned)


def _id_blocks(response: TextResponse) -> list[Selector]:
    found = []
    for element in response.xpath("//*[@id]"):
        if not _POST_ID.match(element.attrib["id"]):
            continue
        if any(_POST_ID.match(i) for i in element.xpath("ancestor::*/@id").getall()):
            continue  # nested inside an outer post block
        if _looks_like_post(element):
            found.append(element)
    return found


def _sibling_blocks(response: TextResponse) -> list[Selector]:
    best: list[Selector] = []
    best_score = 0
    for parent in response.xpath("//body//*[count(*) >= 2]"):
        groups: dict[tuple[str, ...], list[Selector]] = {}
        for child in parent.xpath("./*"):
            groups.setdefault(_shape(child), []).append(child)
        for members in groups.values():
            posts = [m for m in members if _looks_like_post(m)]
            if len(posts) < 2 or len(posts) < len(members) / 2:
                continue
            score = sum(len(join_text(p) or "") for p in posts)
            if score > best_score:
                best, best_score = posts, score
    return best


def _shape(element: Selector) -> tuple[str, ...]:
    classes = [c for c in element.attrib.get("class", "").split() if not _NOISE_CLASS.match(c)]
    return (element.root.tag, *sorted(classes))


def _looks_like_post(element: Selector) -> bool:
    text = join_text(element) or ""
    if len(text) < 5 or not _DATE.search(text):
        return False
    link_text = sum(len(join_text(a) or "") for a in element.css("a"))
    return link_text / len(text) < 0.45


def _body_of(block: Selector, author_href: str | None) -> Selector | None:
    """The element holding the message: hinted by its class, and not holding the post header
    (the author link or a <time>), which rules out wrappers of the whole post."""
    candidates = []
    for element in block.xpath(".//*[@class or @data-role or @itemprop]"):
        hint = " ".join(
            filter(
                None,
                (
                    element.attrib.get("class"),
                    element.attrib.get("data-role"),
                    element.attrib.get("itemprop"),
                ),
            )
        )
        if not _BODY_HINT.search(hint) or _NOT_BODY.search(hint):
            continue
        if element.css("time") or (author_href and author_href in element.css("a::attr(href)").getall()):
            continue
        candidates.append((len(join_text(element) or ""), element))
    if not candidates:
        return None
    longest = max(length for length, _ in candidates)
    # The deepest element that still holds (nearly) all the text: the body, not its wrappers.
    return [element for length, element in candidates if length >= 0.9 * longest][-1]


def _date_text(block: Selector, body: Selector | None) -> str | None:
    body_text = join_text(body) if body is not None else ""
    for text in block.css("::text").getall():
        text = text.strip()
        if text and _DATE.search(text) and (not body_text or text not in body_text):
            return text
    return None


def _walk(items: Any) -> list[dict[str, Any]]:
    found = []
    for item in _as_list(items):
        if isinstance(item, dict):
            found.append(item)
            for key in ("@graph", "mainEntity", "itemListElement"):
                found.extend(_walk(item.get(key)))
    return found


def _type(item: dict[str, Any]) -> set[str]:
    return {str(t).rsplit("/", 1)[-1] for t in _as_list(item.get("@type"))}


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _first(value: Any) -> Any:
    values = _as_list(value)
    return values[0] if values else None


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
