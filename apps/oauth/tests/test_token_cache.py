"""The short-lived token cache (issue 17): a cached token row answers without a query, and revoking or
changing the token, its user or its app takes effect on the very next request."""
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.oauth.selectors import access_token_get_active
from apps.oauth.services import authorization_revoke
from apps.oauth.tests.factories import AccessTokenFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _token_cache_on(settings):
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5


def _lookups(raw: str) -> tuple[Any, int]:
    with CaptureQueriesContext(connection) as queries:
        found = access_token_get_active(token=raw)
    return found, len([q for q in queries.captured_queries if "token_checksum" in q["sql"]])


def test_a_second_lookup_is_answered_from_the_cache():
    token = AccessTokenFactory()
    first, n1 = _lookups(token.token)
    second, n2 = _lookups(token.token)
    assert (n1, n2) == (1, 0)
    assert (second.pk, second.user.username, second.application.client_id) == (
        first.pk, first.user.username, first.application.client_id)
    assert second.user.email == token.user.email


def test_deleting_the_token_revokes_it_at_once():
    token = AccessTokenFactory()
    assert _lookups(token.token)[0] is not None
    token.revoke()  # DOT's revoke: deletes the row
    assert _lookups(token.token) == (None, 1)


def test_withdrawing_the_apps_authorization_revokes_it_at_once():
    token = AccessTokenFactory()
    assert _lookups(token.token)[0] is not None
    authorization_revoke(user=token.user, application=token.application)  # a QuerySet.delete()
    assert _lookups(token.token) == (None, 1)


def test_suspending_the_user_revokes_it_at_once():
    token = AccessTokenFactory()
    assert _lookups(token.token)[0] is not None
    token.user.is_active = False
    token.user.save(update_fields=["is_active"])
    assert _lookups(token.token) == (None, 1)


def test_a_changed_expiry_and_a_renamed_user_show_at_once():
    from django.utils import timezone

    token = AccessTokenFactory()
    assert _lookups(token.token)[0] is not None
    token.user.first_name = "Renamed"
    token.user.save(update_fields=["first_name"])
    assert _lookups(token.token)[0].user.first_name == "Renamed"
    token.expires = timezone.now()
    token.save(update_fields=["expires"])
    assert _lookups(token.token)[0] is None


def test_an_expired_cached_row_is_refused_without_any_change():
    from datetime import timedelta

    from django.utils import timezone

    token = AccessTokenFactory(expires=timezone.now() + timedelta(seconds=1))
    assert _lookups(token.token)[0] is not None
    # Expiry is checked on the cached row too: simulate its passing by rewriting the cached value.
    from apps.oauth.selectors import token_cache, token_cache_key

    key = token_cache_key(token.token_checksum)
    shape, cached = token_cache().get(key)
    row = list(cached)
    row[[i for i, v in enumerate(row) if v == token.expires][0]] = timezone.now() - timedelta(seconds=1)
    token_cache().set(key, (shape, tuple(row)), 5)
    found, queries = _lookups(token.token)
    assert (found, queries) == (None, 0)


def test_a_revoked_token_is_refused_by_the_api_on_the_next_request():
    token = AccessTokenFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.token}")
    assert client.get("/users/me").status_code == 200
    assert client.get("/users/me").status_code == 200  # from the cache
    token.revoke()
    assert client.get("/users/me").status_code == 401


def test_the_last_active_write_does_not_leave_a_stale_user_in_the_cache():
    """The once-per-5-minutes UPDATE of last_active bypasses save(): the cached row is dropped with it,
    so /users/me shows the same last_active on every request after it."""
    token = AccessTokenFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.token}")
    first = client.get("/users/me").json()["last_active"]
    assert first is not None
    assert [client.get("/users/me").json()["last_active"] for _ in range(3)] == [first] * 3
