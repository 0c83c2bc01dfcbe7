"""What the store raises: the errors its callers retry or report."""

from __future__ import annotations

__all__ = ["FrontierLost", "RedisTooOld", "RingUnstable"]


class FrontierLost(Exception):
    """The crawl's keys are gone from Redis (it restarted empty, or was flushed)."""


class RingUnstable(Exception):
    """Membership changed on every one of several consecutive attempts."""


class RedisTooOld(ValueError):
    """The server lacks a command the frontier's scripts use with these settings."""
