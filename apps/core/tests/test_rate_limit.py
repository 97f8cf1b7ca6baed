"""300 requests per 5-minute window per (application, user), counted in Redis (spec §8)."""
import logging
import threading
import time
from collections import Counter

import pytest
from django.test import override_settings

from apps.core.pipeline import ratelimit
from apps.core.pipeline.ratelimit import rate_limit_hit, rate_limit_key
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory

pytestmark = pytest.mark.urls("apps.core.tests.urls")


def test_every_authenticated_answer_carries_the_headers(api):
    before = time.time()
    response = api.get("/echo")
    assert response["X-RateLimit-Limit"] == "300"
    assert response["X-RateLimit-Remaining"] == "299"
    reset = int(response["X-RateLimit-Reset"])
    assert before < reset <= before + 300
    assert api.get("/echo")["X-RateLimit-Remaining"] == "298"


def test_4xx_answers_after_authentication_carry_the_headers(api):
    forbidden = api.get("/forbidden")
    assert forbidden.status_code == 403
    assert forbidden["X-RateLimit-Remaining"] == "299"
    not_allowed = api.delete("/echo")
    assert not_allowed.status_code == 405
    assert not_allowed["X-RateLimit-Remaining"] == "298"


def test_unauthenticated_answers_carry_no_headers(anon_client, db):
    assert "X-RateLimit-Limit" not in anon_client.get("/echo")


@override_settings(RATE_LIMIT_REQUESTS=3)
def test_over_the_limit_is_a_429_with_retry_after(api):
    for remaining in ("2", "1", "0"):
        assert api.get("/echo")["X-RateLimit-Remaining"] == remaining
    response = api.get("/echo")
    assert response.status_code == 429
    body = response.json()
    assert body["type"] == "RATE_LIMITED"
    assert body["code"] == 429
    assert "rate limit" in body["error"].lower()
    assert response["X-Error"] == body["error"]
    assert 1 <= int(response["Retry-After"]) <= 300
    assert response["X-RateLimit-Remaining"] == "0"
    assert response["X-RateLimit-Limit"] == "3"


@override_settings(RATE_LIMIT_REQUESTS=1)
def test_each_application_and_user_pair_has_its_own_window(api, client_for, user, other_user):
    assert api.get("/echo").status_code == 200
    assert api.get("/echo").status_code == 429
    assert client_for(other_user).get("/echo").status_code == 200  # same app, other user
    assert client_for(user, ApplicationFactory()).get("/echo").status_code == 200  # same user, other app
    assert client_for(user).get("/echo").status_code == 429  # a new token of the same pair shares it


@override_settings(RATE_LIMIT_REQUESTS=1)
def test_app_read_only_token_has_a_window_of_its_own(api, app_client):
    assert api.get("/echo").status_code == 200
    assert app_client.get("/app-only").status_code == 200
    assert app_client.get("/app-only").status_code == 429


@override_settings(RATE_LIMIT_REQUESTS=25)
def test_concurrent_hits_never_admit_more_than_the_limit_in_one_window():
    key = rate_limit_key(application_id=1, user_id=1)
    admitted: Counter[int] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(8)

    def hammer():
        start.wait()
        for _ in range(20):
            state = rate_limit_hit(key)
            if state.allowed:
                with lock:
                    admitted[state.reset] += 1

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 160 attempts: exactly 25 get through (more windows only if the run straddled a window boundary).
    assert all(count == 25 for count in admitted.values()), admitted
    assert sum(admitted.values()) >= 25


def test_window_counts_restart_in_the_next_window(settings):
    settings.RATE_LIMIT_REQUESTS = 2
    key = rate_limit_key(application_id=7, user_id=None)
    now = float((int(time.time()) // 300 + 1) * 300)  # the start of the next 300 s window
    assert [rate_limit_hit(key, now=now).allowed for _ in range(3)] == [True, True, False]
    next_window = rate_limit_hit(key, now=now + 300)
    assert next_window.allowed
    assert next_window.reset == int(now) + 600


def test_a_windows_counter_expires_when_the_window_ends(settings):
    key = rate_limit_key(application_id=8, user_id=8)
    state = rate_limit_hit(key)
    window_key, reset = ratelimit.rate_limit_window(key)
    client = ratelimit._redis_client(settings.REDIS_URL)
    assert client.get(window_key) == b"1"
    # EXPIREAT the window's end (+1 s): the key never outlives its window, so no reset job is needed.
    assert client.expiretime(window_key) == reset + 1 == state.reset + 1


def test_the_count_goes_on_after_redis_forgets_the_script(settings):
    # A restarted Redis has no scripts: EVALSHA answers NOSCRIPT and the script is loaded again.
    settings.RATE_LIMIT_REQUESTS = 5
    key = rate_limit_key(application_id=9, user_id=9)
    assert rate_limit_hit(key).remaining == 4
    ratelimit._redis_client(settings.REDIS_URL).script_flush()
    assert [rate_limit_hit(key).remaining for _ in range(2)] == [3, 2]


def test_the_count_reads_cache_entries_in_its_round_trip_and_shares_the_window(settings):
    """rate_limit_hit_reading (issue 24): the same window as rate_limit_hit, plus the values Django's cache
    would answer for the keys; it goes on after Redis forgets its script."""
    from django.core.cache import cache

    from apps.core.pipeline.ratelimit import rate_limit_hit_reading

    settings.RATE_LIMIT_REQUESTS = 5
    key = rate_limit_key(application_id=8, user_id=8)
    cache.set("read-with-count", {"total": 12}, 60)
    assert rate_limit_hit(key).remaining == 4
    state, found = rate_limit_hit_reading(key, ["read-with-count", "absent-key"])
    assert state.remaining == 3 and state.allowed
    assert found == {"read-with-count": {"total": 12}, "absent-key": None}
    ratelimit._redis_client(settings.REDIS_URL).script_flush()
    state, found = rate_limit_hit_reading(key, ["read-with-count"])
    assert state.remaining == 2 and found == {"read-with-count": {"total": 12}}
    assert rate_limit_hit_reading(key, [])[0].remaining == 1  # no keys: the plain count


def test_the_reading_count_fails_open_when_redis_does(settings, monkeypatch):
    import redis as redis_module

    from apps.core.pipeline.ratelimit import rate_limit_hit_reading

    def refused(*args, **kwargs):
        raise redis_module.ConnectionError("refused")

    monkeypatch.setattr(ratelimit, "registered_script", lambda client, source: refused)
    settings.RATE_LIMIT_REQUESTS = 1
    state, found = rate_limit_hit_reading(rate_limit_key(application_id=7, user_id=7), ["any"])
    assert state.allowed and state.remaining == 1 and found is None


def test_without_redis_url_the_django_cache_counts(settings):
    settings.REDIS_URL = ""
    settings.RATE_LIMIT_REQUESTS = 2
    key = rate_limit_key(application_id=3, user_id=3)
    assert [rate_limit_hit(key).remaining for _ in range(3)] == [1, 0, 0]


def test_unreachable_redis_fails_open_and_logs_once_a_minute(api, settings, caplog, monkeypatch):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    settings.RATE_LIMIT_REQUESTS = 1
    monkeypatch.setattr(ratelimit, "_last_failure_logged", 0.0)
    with caplog.at_level(logging.WARNING, logger="apps.core.pipeline.ratelimit"):
        responses = [api.get("/echo") for _ in range(3)]
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert responses[0]["X-RateLimit-Remaining"] == "1"
    warnings = [r for r in caplog.records if r.name == "apps.core.pipeline.ratelimit"]
    assert len(warnings) == 1
    assert "Redis" in warnings[0].getMessage()


def test_authentication_writes_last_active_once_per_five_minutes(api, user, django_assert_num_queries):
    # 1. the token with its user and application, 2. UPDATE of last_active
    with django_assert_num_queries(2):
        api.get("/echo")
    user.refresh_from_db()
    assert user.last_active is not None
    # 1. the token
    with django_assert_num_queries(1):
        api.get("/echo")


def test_stale_last_active_is_written_by_one_request_only(user, application, django_assert_num_queries):
    from django.core.cache import cache
    from rest_framework.test import APIClient

    token = AccessTokenFactory(user=user, application=application)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.token}")
    cache.add(f"last-active:{user.pk}", 1, timeout=300)  # another request of the user just wrote it
    with django_assert_num_queries(1):
        client.get("/echo")
