"""One session per site for the whole cluster, in the crawl's Redis.

==============================  ======  ==================================================
key (after the crawl's prefix)  type    content
==============================  ======  ==================================================
``login:<site>``                hash    ``cookies`` (JSON list), ``ua`` (the User-Agent it
                                        is bound to), ``engine``, ``token`` (the engine's
                                        CSRF token), ``user``, ``at`` (ms), ``version``
                                        (bumped by every login), ``posts`` (login forms
                                        sent, cluster-wide)
``login:<site>:lock``           string  the node logging in (``SET NX PX``, kept alive
                                        by its holder while it logs in)
``login:<site>:failed``         string  the one line of a failed login, for a minute, with
                                        a mark of its credentials: the other nodes with
                                        the same ones stop without trying them again; a
                                        run with other credentials tries those
==============================  ======  ==================================================

No password is stored, and no cookie in the clear: ``cookies`` is sealed (Fernet) with a key
that every node derives from the site's credentials (PBKDF2), so Redis and its AOF hold no
live session. A session sealed with other credentials does not open: a new login. Without
the frontier (a project with another scheduler) the same lives in memory, for one process.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crawler.frontier.keys import Keys

from cryptography.fernet import Fernet, InvalidToken

FAILED_TTL = 60  # s: a failure stops the nodes starting with it, not a later run
#: A login lock lives this long unless its holder extends it (every third of it, while it
#: logs in): a node that dies mid-login frees it within this, a slow login keeps it
LOCK_TTL_MS = 30_000
KDF_ROUNDS = 100_000  # PBKDF2 rounds of the sealing key: ~50 ms once per site and node

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


class SessionStore:
    """The sessions of a crawl in Redis (*client*), at the crawl's *keys*."""

    def __init__(self, client: Any, keys: Keys) -> None:
        self.client = client
        self.keys = keys
        self.ciphers: dict[str, Fernet] = {}  # site -> the key its cookies are sealed with
        self.marks: dict[str, str] = {}  # site -> a mark of its credentials (not them)

    def seal_with(self, site: str, user: str, password: str) -> None:
        """Seal the cookies of *site* with a key of these credentials from now on."""
        salt = f"{self.key(site)}:{user}".encode()
        raw = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, KDF_ROUNDS)
        self.ciphers[site] = Fernet(base64.urlsafe_b64encode(raw))
        self.marks[site] = hashlib.sha256(raw).hexdigest()[:16]

    def key(self, site: str) -> str:
        return self.keys.login(site)

    def load(self, site: str) -> dict[str, Any] | None:
        raw = self.client.hgetall(self.key(site))
        data = {_str(k): _str(v) for k, v in raw.items()}
        if "cookies" not in data:
            return None
        try:
            data["cookies"] = json.loads(self.ciphers[site].decrypt(data["cookies"].encode()))
        except (KeyError, InvalidToken):
            return None  # sealed with other credentials (or none known): not ours
        data["version"] = int(data.get("version") or 0)
        return data

    def save(self, site: str, session: dict[str, Any]) -> int:
        """Store a new session of *site*; its version."""
        key = self.key(site)
        sealed = self.ciphers[site].encrypt(json.dumps(session["cookies"]).encode()).decode()
        fields = {"cookies": sealed, "ua": session.get("ua") or "",
                  "engine": session.get("engine") or "", "token": session.get("token") or "",
                  "user": session.get("user") or "", "at": int(time.time() * 1000)}
        pipe = self.client.pipeline()
        pipe.hset(key, mapping=fields)
        pipe.hincrby(key, "version", 1)
        return int(pipe.execute()[1])

    def count_post(self, site: str) -> int:
        return int(self.client.hincrby(self.key(site), "posts", 1))

    def posts(self, site: str) -> int:
        return int(self.client.hget(self.key(site), "posts") or 0)

    def acquire(self, site: str, owner: str) -> bool:
        return bool(self.client.set(self.keys.login_lock(site), owner, nx=True, px=LOCK_TTL_MS))

    def extend(self, site: str, owner: str) -> bool:
        """Whether *owner* still holds the lock of *site* (its TTL then starts again)."""
        return bool(self.client.eval(_EXTEND, 1, self.keys.login_lock(site), owner, LOCK_TTL_MS))

    def release(self, site: str, owner: str) -> None:
        self.client.eval(_RELEASE, 1, self.keys.login_lock(site), owner)

    def fail(self, site: str, message: str) -> None:
        mark = self.marks.get(site, "")
        self.client.set(self.keys.login_failed(site), f"{mark} {message}", ex=FAILED_TTL)

    def failed(self, site: str) -> str | None:
        """The failure of a login with the same credentials (other ones are tried)."""
        value = self.client.get(self.keys.login_failed(site))
        mark, _, message = _str(value or "").partition(" ")
        return message if value is not None and mark == self.marks.get(site, "") else None


class MemoryStore(SessionStore):
    """The same in memory (no frontier, so no cluster)."""

    def __init__(self) -> None:
        self.ciphers, self.marks = {}, {}
        self.data: dict[str, dict[str, Any]] = {}
        self.locks: dict[str, str] = {}
        self.failures: dict[str, tuple[str, float]] = {}

    def load(self, site: str) -> dict[str, Any] | None:
        data = self.data.get(site)
        return dict(data) if data and "cookies" in data else None

    def save(self, site: str, session: dict[str, Any]) -> int:
        data = self.data.setdefault(site, {})
        data.update(session, version=int(data.get("version") or 0) + 1)
        return data["version"]

    def count_post(self, site: str) -> int:
        data = self.data.setdefault(site, {})
        data["posts"] = int(data.get("posts") or 0) + 1
        return data["posts"]

    def posts(self, site: str) -> int:
        return int(self.data.get(site, {}).get("posts") or 0)

    def acquire(self, site: str, owner: str) -> bool:
        return self.locks.setdefault(site, owner) == owner

    def extend(self, site: str, owner: str) -> bool:
        return self.locks.get(site) == owner

    def release(self, site: str, owner: str) -> None:
        if self.locks.get(site) == owner:
            del self.locks[site]

    def fail(self, site: str, message: str) -> None:
        self.failures[site] = (message, time.time() + FAILED_TTL)

    def failed(self, site: str) -> str | None:
        message, until = self.failures.get(site, (None, 0.0))
        return message if until > time.time() else None


def _str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
