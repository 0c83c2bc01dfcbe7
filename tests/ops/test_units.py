"""Small pure parts: the node's environment mapping, readiness rules, the ETA."""

from __future__ import annotations

from crawler.ops.health import readiness
from crawler.ops.node import settings_from_env
from crawler.ops.progress import RateEstimate, duration
from crawler.redis import redact


def test_environment_becomes_settings():
    env = {"REDIS_URL": "redis://:pw@redis:6379/0", "CRAWLER_NODE_ID": "crawler-3",
           "SCRAPY_DOWNLOAD_DELAY": "0.5", "SCRAPY_SETTINGS_MODULE": "crawler.settings",
           "SCRAPY_PROJECT": "default", "REDIS_PASSWORD": "pw", "HOME": "/app",
           "START_URLS": "http://x/"}
    assert settings_from_env(env) == {"REDIS_URL": "redis://:pw@redis:6379/0",
                                      "CRAWLER_NODE_ID": "crawler-3", "DOWNLOAD_DELAY": "0.5"}


HEALTHY = {"redis_reachable": True, "seconds_since_heartbeat": 0.4, "draining": False,
           "member": True}


def test_readiness_reasons():
    assert readiness(HEALTHY, 10) == []
    assert readiness(None, 10) == ["the scheduler has not opened yet"]
    assert readiness({**HEALTHY, "redis_reachable": False}, 10) == ["Redis unreachable"]
    assert readiness({**HEALTHY, "seconds_since_heartbeat": None}, 10) == ["no heartbeat yet"]
    assert "over CRAWLER_NODE_TIMEOUT" in readiness({**HEALTHY, "seconds_since_heartbeat": 11}, 10)[0]
    assert readiness({**HEALTHY, "draining": True, "member": False}, 10) == ["draining"]
    assert readiness({**HEALTHY, "member": False}, 10) == ["not a member of the ring"]
    assert readiness(HEALTHY, 10, shutting_down=True) == ["shutting down"]
    assert readiness(None, 10, shutting_down=True) == ["shutting down"]


def test_eta_from_a_smoothed_fetch_rate():
    rate = RateEstimate(smoothing=0.5)
    assert rate.eta(1000) is None  # nothing measured yet
    rate.add(10.0)
    assert rate.eta(1000) is None  # one interval is not a rate yet
    rate.add(20.0)  # smoothed: 15/s
    assert rate.eta(900) == 60
    rate.add(0.0)  # a stall halves the rate rather than blowing the ETA up
    assert rate.eta(900) == 120
    assert rate.eta(0) is None and rate.eta(None) is None
    assert duration(3725) == "1h02m" and duration(69) == "1m09s"


def test_redact_hides_passwords():
    assert redact("at redis://:pw@h:1/0 and rediss://u:p@h") == \
        "at redis://:***@h:1/0 and rediss://u:***@h"
    assert redact("unix:///tmp/r.sock") == "unix:///tmp/r.sock"
