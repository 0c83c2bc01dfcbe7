"""No request reaches a private network unless allowed (SSRF): checked at connection time.

Links on crawled pages, and redirects, may point at loopback, private, link-local or
cloud metadata addresses (``169.254.169.254``), directly or through a host name that
resolves there. :class:`PublicAddressResolver` is Scrapy's DNS resolver with every
non-public address taken out of each resolution, so the check holds after DNS, for
IP literals and for every redirect hop; a host left with no address fails to connect
(``DNSLookupError``) and is counted under ``netguard/blocked``.

Settings: :setting:`CRAWLER_ALLOW_PRIVATE_ADDRESSES` (``True`` for local test sites
and the demo), :setting:`DNSCACHE_ENABLED`, :setting:`DNSCACHE_SIZE`.

It is the reactor's resolver, which Scrapy's ``CrawlerProcess`` builds from the
process's settings: a project sets ``TWISTED_DNS_RESOLVER`` to it in its settings.py
(this project does); add-ons and spiders cannot change it.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any, Self
from urllib.parse import urlsplit

from scrapy.resolver import CachingHostnameResolver
from twisted.internet.interfaces import IHostnameResolver, IResolutionReceiver
from zope.interface import implementer

from crawler.config import value

logger = logging.getLogger(__name__)

#: connections refused in this process (the resolver is the process's, not a crawl's);
#: the scheduler copies it into the crawl stats as ``netguard/blocked``
BLOCKED = [0]
#: hosts whose every address was refused in this process (at most 10,000): their URLs'
#: outcome is ``filtered/private_address``, not a failure (see :func:`refused_host`)
REFUSED_HOSTS: set[str] = set()


def refused_host(host: str | None) -> bool:
    """Whether the netguard refused every address of *host* (a URL's host name) here."""
    return bool(host) and host.lower().strip("[]") in REFUSED_HOSTS


#: internal addresses that :mod:`ipaddress` calls global (or not on every Python version):
#: cloud metadata services, and IPv6 forms whose IPv4 cannot be judged. k8s/base/network.yaml
#: excepts the same ranges (tests/faults/test_security.py checks that both agree).
NOT_PUBLIC = tuple(ipaddress.ip_network(n) for n in (
    "168.63.129.16/32",  # Azure's WireServer (platform DNS, agent, metadata)
    "192.0.0.0/24",  # IETF protocol assignments; Oracle Cloud's metadata is 192.0.0.192
    "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215): where its IPv4 sits is the operator's choice
    "::/96",  # IPv4-compatible (deprecated), "::10.0.0.1"
    "::ffff:0:0:0/96",  # IPv4-translated (SIIT), "::ffff:0:10.0.0.1"
))
#: the well-known NAT64 prefix (RFC 6052): its last 32 bits are the IPv4 address reached
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def is_public(host: str) -> bool:
    """Whether *host* (an IP address) is a public, unicast address.

    An IPv6 address that carries an IPv4 one (IPv4-mapped, NAT64, 6to4, Teredo) reaches
    that IPv4 address through a gateway: it is public only if that one is too."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return is_public(str(ip.ipv4_mapped))
        if ip in NAT64:
            return is_public(str(ipaddress.IPv4Address(int(ip) & 0xFFFF_FFFF)))
        embedded = [ip.sixtofour] if ip.sixtofour else list(ip.teredo or ())
        if not all(is_public(str(v4)) for v4 in embedded):
            return False
    if any(ip in network for network in NOT_PUBLIC):  # a v4 address is in no v6 network
        return False
    return ip.is_global and not ip.is_multicast


@implementer(IResolutionReceiver)
class _PublicOnly:
    def __init__(self, receiver: Any, host: str, blocked: Any) -> None:
        self.receiver = receiver
        self.host = host
        self.blocked = blocked
        self.passed = self.refused = 0

    def resolutionBegan(self, resolution: Any) -> None:  # noqa: N802 - Twisted's interface
        self.receiver.resolutionBegan(resolution)

    def addressResolved(self, address: Any) -> None:  # noqa: N802
        if is_public(address.host):
            self.passed += 1
            self.receiver.addressResolved(address)
        else:
            self.refused += 1
            self.blocked(self.host, address.host)

    def resolutionComplete(self) -> None:  # noqa: N802
        if self.refused and not self.passed and len(REFUSED_HOSTS) < 10_000:
            REFUSED_HOSTS.add(self.host.lower().strip("[]"))
        self.receiver.resolutionComplete()


@implementer(IHostnameResolver)
class PublicAddressResolver(CachingHostnameResolver):
    """Scrapy's caching resolver, resolving to public addresses only (unless allowed)."""

    def __init__(self, reactor: Any, cache_size: int, allow_private: bool,
                 crawler: Any = None) -> None:
        super().__init__(reactor, cache_size)
        self.allow_private = allow_private
        self.crawler = crawler
        self._logged: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> Self:
        s = crawler.settings
        cache_size = s.getint("DNSCACHE_SIZE") if s.getbool("DNSCACHE_ENABLED") else 0
        return cls(reactor, cache_size, value(s, "CRAWLER_ALLOW_PRIVATE_ADDRESSES"), crawler)

    def resolveHostName(self, resolutionReceiver: Any, hostName: str,  # noqa: N802, N803
                        portNumber: int = 0, addressTypes: Any = None,  # noqa: N803
                        transportSemantics: str = "TCP") -> Any:  # noqa: N803
        if not self.allow_private:
            resolutionReceiver = _PublicOnly(resolutionReceiver, hostName, self._blocked)
        return super().resolveHostName(resolutionReceiver, hostName, portNumber, addressTypes,
                                       transportSemantics)

    def _blocked(self, host: str, address: str) -> None:
        BLOCKED[0] += 1
        if host not in self._logged and len(self._logged) < 100:
            self._logged.add(host)
            logger.warning("Not connecting to %(host)s: it resolves to %(address)s, a private, "
                           "loopback, link-local or reserved address (set "
                           "CRAWLER_ALLOW_PRIVATE_ADDRESSES to crawl such sites)",
                           {"host": host, "address": address})


#: what a refused start URL's error tells the user to add
ALLOW = "-s CRAWLER_ALLOW_PRIVATE_ADDRESSES=True"


def private_address(url: str) -> str | None:
    """The non-public address *url*'s host resolves to, when every address it resolves to
    is one (the crawl would fetch nothing there); ``None`` when one is public, or when the
    host does not resolve here (the crawl then reports it as it goes)."""
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses or any(is_public(address) for address in addresses):
        return None
    return addresses[0]


def refused_start_url(urls: list[str], settings: Any) -> str | None:
    """One line for the first start URL the netguard would refuse, or ``None``."""
    if value(settings, "CRAWLER_ALLOW_PRIVATE_ADDRESSES"):
        return None
    for url in urls:
        if (address := private_address(url)) is not None:
            return (f"start URL {url} is on {address}, a private, loopback or reserved "
                    f"address, which the crawler does not connect to by default (SSRF guard); "
                    f"to crawl a site there, add {ALLOW}")
    return None
