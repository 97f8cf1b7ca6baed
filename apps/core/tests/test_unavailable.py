"""Backing services down: clean 503s from the database or the broker, a cache that fails open.

docs/reliability.md has the end-to-end versions (tests/faults: real servers stopped under gunicorn).
"""
import logging

import pytest
from django.db import OperationalError
from django.test import Client

from apps.core.cache import failopen as fail_open
from apps.core.cache.failopen import FailOpenRedisCache

pytestmark = pytest.mark.urls("apps.core.tests.urls")

DATABASE_DOWN = {
    "error": "The database is unavailable; try again shortly.",
    "code": 503,
    "type": "SERVICE_UNAVAILABLE",
}
BROKER_DOWN = {
    "error": "The task queue is unavailable; try again shortly.",
    "code": 503,
    "type": "SERVICE_UNAVAILABLE",
}


def assert_unavailable(response, body, retry_after):
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json() == body
    assert response["Retry-After"] == retry_after
    assert response["X-Error"] == body["error"]


def test_a_database_error_in_an_api_view_is_a_503_with_retry_after(api):
    assert_unavailable(api.get("/database-down"), DATABASE_DOWN, "5")


def test_a_database_error_while_checking_the_token_is_a_503(api, monkeypatch):
    # Authentication runs before any view: its token lookup is the first query of every request.
    def unreachable(**kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr("apps.oauth.authentication.access_token_get_active", unreachable)
    assert_unavailable(api.get("/echo"), DATABASE_DOWN, "5")


def test_a_database_error_outside_drf_is_a_json_503_too(db):
    client = Client(raise_request_exception=False)
    assert_unavailable(client.get("/plain-database-down"), DATABASE_DOWN, "5")


def test_a_broker_error_that_escapes_a_service_is_a_503(api):
    assert_unavailable(api.get("/broker-down"), BROKER_DOWN, "30")


def test_other_crashes_stay_500(api):
    assert api.get("/crash").json()["type"] == "INTERNAL_ERROR"


# --- The fail-open cache --------------------------------------------------------------------------


@pytest.fixture
def dead_cache(monkeypatch):
    monkeypatch.setattr(fail_open, "_last_failure_logged", 0.0)
    return FailOpenRedisCache("redis://127.0.0.1:1/0", {"OPTIONS": {"socket_connect_timeout": 0.25}})


def test_the_cache_answers_like_an_empty_one_while_redis_is_unreachable(dead_cache):
    assert dead_cache.get("k") is None
    assert dead_cache.get("k", "fallback") == "fallback"
    assert dead_cache.get_many(["a", "b"]) == {}
    assert dead_cache.has_key("k") is False
    assert dead_cache.get_or_set("k", lambda: 41) == 41
    assert dead_cache.incr("n", 5) == 5
    assert dead_cache.decr("n") == -1
    assert dead_cache.delete("k") is False
    assert dead_cache.set_many({"a": 1}) == []
    assert dead_cache.touch("k") is False
    dead_cache.set("k", 1)
    dead_cache.delete_many(["a"])
    dead_cache.clear()


def test_a_gate_kept_in_the_cache_opens_while_redis_is_unreachable(dead_cache):
    # add() is how callers claim "first one wins" (a mail a minute, one package build): nothing is known
    # to block the caller, so it goes ahead rather than refusing every request.
    assert dead_cache.add("gate", 1) is True
    assert dead_cache.add("gate", 1) is True


def test_the_cache_outage_is_logged_once_a_minute(dead_cache, caplog):
    with caplog.at_level(logging.WARNING, logger="apps.core.cache.failopen"):
        for _ in range(5):
            dead_cache.get("k")
            dead_cache.add("k", 1)
    warnings = [r for r in caplog.records if r.name == "apps.core.cache.failopen"]
    assert len(warnings) == 1
    assert "Redis" in warnings[0].getMessage()


def test_the_fail_open_cache_is_a_normal_cache_while_redis_is_up():
    from django.core.cache import caches

    cache = caches["default"]
    assert isinstance(cache, FailOpenRedisCache)
    assert cache.add("k", 1) is True
    assert cache.add("k", 2) is False
    assert cache.get("k") == 1
    assert cache.incr("k", 2) == 3
