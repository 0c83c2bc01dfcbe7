"""What goes to and comes from the frontier's scripts: requests to push, acks, leases,
heartbeats, and their result codes."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from crawler.frontier.link import Sent

DUPLICATE, QUEUED, OVER_HOST_LIMIT = 0, 1, 2
HANDED_BACK = -1  # an Ack's done_ms for a request handed back unstarted (refill.lua)
SWEEP_CHUNK = 5000  # hosts moved per sweep.lua call

class Pending(NamedTuple):
    """A request waiting to be pushed. ``fingerprint`` is None for dont_filter."""

    host: str
    fingerprint: str | None
    payload: bytes
    url: str = ""
    retry: bool = False  # continues a leased request: no dedup, no host budget
    mark: bool = False  # dont_filter, yet marked seen (a fresh crawl's start request)


class Ack(NamedTuple):
    lease_id: str
    host: str
    done_ms: int  # when the response (or failure) came back; HANDED_BACK: not started
    backoff_ms: int = 0  # put the host into backoff: ms to wait, or -1 (exponential)


class Leased(NamedTuple):
    lease_id: str
    host: str
    payload: bytes
    stolen: bool = False  # from a host another node owns


class Sending(NamedTuple):
    """A :meth:`Frontier.send` whose reply is not read yet."""

    sent: Sent
    request: tuple  # send()'s arguments, to send again (NOSCRIPT, a new Bloom layer)
    groups: list


class Beat(NamedTuple):
    alive: bool
    epoch: int
    dead: list[str]
    queued: int
    leased: int
    orphans: int
    control: dict[str, str]


class LeaseAsk(NamedTuple):
    """What a refill leases: up to *want* requests from due hosts. Short of due hosts of
    its own, the node takes hosts that have waited over *steal_after_ms* past their due
    time in the ready sets of *steal_from* (other nodes), most overdue first: their
    owners are too busy for them."""

    want: int
    steal_from: tuple[str, ...] = ()
    steal_after_ms: int = 0
