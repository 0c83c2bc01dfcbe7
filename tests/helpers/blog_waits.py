"""The blog spider's callbacks called one after the other, their waiting items given as
:class:`crawler.blogs.waits.WaitingItems` gives them in a crawl (without its reactor)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from crawler.blogs.waits import Later

Step = tuple[Callable[..., Iterable[Any] | None], tuple[Any, ...]]


def run_steps(steps: list[Step], ended: bool = False) -> list[Any]:
    """The outputs of *steps* (callback, arguments) in order; a :class:`Later` gives its items
    after the step that makes it ready; *ended*: those still waiting at the end give theirs
    (their wait ended: ``CRAWLER_BLOG_WAIT``)."""
    out: list[Any] = []
    waiting: list[Later] = []
    for call, args in steps:
        for output in call(*args) or ():
            (waiting if isinstance(output, Later) else out).append(output)
        waiting = _give_ready(waiting, out)
    while ended and waiting:
        later = waiting.pop(0)
        if not later.ready():
            later.gave_up()
        for output in later.items():
            (waiting if isinstance(output, Later) else out).append(output)
    return out


def _give_ready(waiting: list[Later], out: list[Any]) -> list[Later]:
    while any(later.ready() for later in waiting):
        later = next(later for later in waiting if later.ready())
        waiting.remove(later)
        for output in later.items():
            (waiting if isinstance(output, Later) else out).append(output)
    return waiting
