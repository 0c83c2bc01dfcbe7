"""The blog content every blog fixture site renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tests.extract.sitegen.content import CODE, SHANGHAI

POSTS_PER_PAGE = 3
#: WordPress "comments per page" (top-level threads) and the API page size in the fixtures.
COMMENTS_PER_PAGE = 3


@dataclass
class BAuthor:
    id: int
    name: str
    slug: str


@dataclass
class BComment:
    id: int
    author: str
    at: datetime
    text: str
    parent: int | None = None


@dataclass
class BPost:
    id: int
    slug: str
    title: str
    author: BAuthor
    at: datetime
    categories: list[str]
    tags: list[str]
    #: One list of paragraphs per part (more than one part = split with <!--nextpage-->).
    parts: list[list[str]]
    code: str | None = None
    comments: list[BComment] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"/{self.at:%Y}/{self.at:%m}/{self.slug}/"

    def threads(self) -> list[list[BComment]]:
        """Top-level comments with their replies, in display order."""
        tops = [c for c in self.comments if c.parent is None]
        return [[top, *[c for c in self.comments if c.parent == top.id]] for top in tops]

    def comment_pages(self) -> list[list[list[BComment]]]:
        threads = self.threads()
        return [threads[i : i + COMMENTS_PER_PAGE] for i in range(0, len(threads), COMMENTS_PER_PAGE)] or [[]]


CAROL = BAuthor(4, "Carol Zhang", "carol")
BOB = BAuthor(3, "Bob Li", "bob")


def build_blog() -> list[BPost]:
    """Newest first, as the index lists them."""
    base = datetime(2024, 1, 10, 18, 30, tzinfo=SHANGHAI)
    posts = []
    for n in range(1, 8):
        at = base + timedelta(days=6 * (n - 1))
        posts.append(
            BPost(
                id=100 + n,
                slug=f"post-{n:02d}",
                title=f"Post {n:02d}: 爬虫笔记 Crawling notes {n}",
                author=CAROL if n % 2 else BOB,
                at=at,
                categories=["Engineering 工程"] + (["Reviews 评测"] if n % 3 == 0 else []),
                tags=["scrapy", "中文"] if n % 2 else ["rss"],
                parts=[
                    [
                        f"[#{n}01] 分页是论坛爬虫最容易出错的地方之一。",
                        f"Paragraph two of post {n}: retries and backoff.",
                    ]
                ],
            )
        )
    posts[2].code = CODE
    posts[2].comments = [
        BComment(501, "Dave Chen", posts[2].at + timedelta(hours=3), "Comment one 评论一"),
        BComment(502, "Erin Liu", posts[2].at + timedelta(hours=5), "Comment two 评论二"),
        BComment(503, "Guest Reader", posts[2].at + timedelta(hours=7), "Comment three 评论三"),
        BComment(504, "Bob Li", posts[2].at + timedelta(hours=9), "Reply to three 回复", parent=503),
        BComment(505, "匿名用户", posts[2].at + timedelta(hours=11), "Comment five on page two 第二页"),
    ]
    posts[3].comments = [BComment(601, "alice", posts[3].at + timedelta(days=1), "Nice post! 好文")]
    posts[4].parts = [posts[4].parts[0], ["第二页的内容 Part two of a split post.", "The end."]]
    return list(reversed(posts))
