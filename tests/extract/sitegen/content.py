"""The forum content every fixture site renders (one source of truth for all engines)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

SHANGHAI = ZoneInfo("Asia/Shanghai")
#: The fixture server's clock (its Date header): relative dates on the pages count from here.
NOW = datetime(2024, 3, 2, 12, 0, 0, tzinfo=SHANGHAI)
HTTP_DATE = "Sat, 02 Mar 2024 04:00:00 GMT"
THREADS_PER_PAGE = 3
POSTS_PER_PAGE = 3


@dataclass
class User:
    id: int
    name: str


@dataclass
class FPost:
    id: int
    author: User
    at: datetime
    #: Body as neutral HTML fragments; renderers wrap quotes and code in engine markup.
    paragraphs: list[str]
    quote_of: int | None = None
    code: str | None = None
    edited_at: datetime | None = None


@dataclass
class FThread:
    id: int
    title: str
    slug: str
    posts: list[FPost]
    views: int
    #: Listed on the board but answers with the engine's "deleted / no permission" page.
    denied: bool = False

    @property
    def replies(self) -> int:
        return max(len(self.posts) - 1, 0)

    def pages(self) -> list[list[FPost]]:
        return [self.posts[i : i + POSTS_PER_PAGE] for i in range(0, len(self.posts), POSTS_PER_PAGE)] or [[]]


@dataclass
class FBoard:
    id: int
    name: str
    slug: str
    description: str
    threads: list[FThread] = field(default_factory=list)

    def pages(self) -> list[list[FThread]]:
        t = self.threads
        return [t[i : i + THREADS_PER_PAGE] for i in range(0, len(t), THREADS_PER_PAGE)]


ZHANG = User(11, "张三")
LI = User(12, "李四")
ALICE = User(13, "alice")
WANG = User(14, "王五")

CODE = 'def greet(name):\n    if name:\n        return "你好, " + name\n    return "hello & <world>"'


def _t(days: float = 0, hours: float = 0, minutes: float = 0) -> datetime:
    return NOW - timedelta(days=days, hours=hours, minutes=minutes)


def _big_thread() -> FThread:
    posts = [
        FPost(
            1001,
            ZHANG,
            datetime(2024, 2, 20, 9, 15, tzinfo=SHANGHAI),
            ["大家好，这是第一帖。讨论一下爬虫的礼貌策略。", "Welcome to the thread about polite crawling."],
        ),
        FPost(
            1002,
            LI,
            datetime(2024, 2, 21, 18, 40, tzinfo=SHANGHAI),
            ["同意楼主，每个主机并发应该是 1。", "Edited: fixed a typo."],
            edited_at=datetime(2024, 2, 21, 19, 2, tzinfo=SHANGHAI),
        ),
        FPost(
            1003,
            ALICE,
            datetime(2024, 2, 25, 8, 5, tzinfo=SHANGHAI),
            ["Here is the helper I use:"],
            code=CODE,
        ),
        FPost(1004, WANG, _t(days=3, hours=2), ["引用一下一楼。我觉得 robots.txt 也要遵守。"], quote_of=1001),
        FPost(1005, ZHANG, _t(days=1, hours=-0.5), ["昨天测试了一下，效果不错。"]),
        FPost(1006, ALICE, _t(hours=5), ["Agreed with the code above; 代码很清楚。"], quote_of=1003),
        FPost(1007, LI, _t(minutes=30), ["最后一帖：结帖。Last post, closing."]),
    ]
    return FThread(101, "爬虫礼貌策略讨论 Polite crawling", "polite-crawling", posts, views=1234)


def _small(tid: int, pid: int, title: str, slug: str, author: User, at: datetime, text: str) -> FThread:
    return FThread(tid, title, slug, [FPost(pid, author, at, [text])], views=tid % 97 + 10)


def build() -> list[FBoard]:
    general = FBoard(2, "综合讨论", "general", "随便聊聊 General chat")
    general.threads = [
        _big_thread(),
        _small(
            102,
            1101,
            "新人报到",
            "hello",
            WANG,
            datetime(2024, 1, 5, 10, 0, tzinfo=SHANGHAI),
            "新人报到，请多关照！",
        ),
        _small(
            103,
            1102,
            "Weekend plans",
            "weekend",
            ALICE,
            datetime(2024, 1, 6, 21, 30, tzinfo=SHANGHAI),
            "Anyone hiking?",
        ),
        _small(
            104,
            1103,
            "编码问题 GBK",
            "gbk",
            LI,
            datetime(2024, 1, 7, 7, 45, tzinfo=SHANGHAI),
            "页面是 GBK 编码，头部却写 UTF-8。",
        ),
        _small(
            105,
            1104,
            "Site news",
            "news",
            ZHANG,
            datetime(2024, 1, 8, 12, 0, tzinfo=SHANGHAI),
            "版规更新 / rules updated.",
        ),
    ]
    code = FBoard(3, "编程技术", "programming", "Programming 编程")
    code.threads = [
        _small(
            201,
            1201,
            "Scrapy 2.19 的 start()",
            "scrapy-start",
            ALICE,
            datetime(2024, 2, 1, 15, 0, tzinfo=SHANGHAI),
            "start_requests 已经没有了，用 async def start()。",
        ),
        FThread(
            202,
            "已删除的主题",
            "deleted",
            [FPost(1301, WANG, datetime(2024, 2, 2, 9, 0, tzinfo=SHANGHAI), ["secret"])],
            views=5,
            denied=True,
        ),
    ]
    return [general, code]


SITE_NAME = "示例论坛"
