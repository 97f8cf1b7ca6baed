"""Issue 22, finding 3: a hidden or deleted Thing must not be served again after a Redis outage.

A private redis-server (tests/faults/servers.PrivateRedis) holds the cache. The reads are warmed, the
server's whole content is saved, the server is stopped (a real outage: every invalidation sent meanwhile
fails), the Thing is hidden by a moderator (or deleted by its owner, or made private), and the server comes
back with the saved data, as a Redis restarted from its snapshot or reachable again after a partition
would. Every read path must then answer as the database says: 404 on the API and the site page, and the
Thing gone from the lists and search. The cached entries are validated against the version the database
owns (apps.things.bodycache), so the stale entries Redis brought back are never used."""
import pytest
from django.conf import settings as django_settings
from django.core.cache import cache

from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide
from apps.things import services
from apps.things.hooks import thing_reindex
from apps.things.tests.factories import ThingFactory
from tests.faults.servers import PrivateRedis

pytestmark = pytest.mark.django_db

WORD = "zanzibarite"


@pytest.fixture
def private_redis(settings):
    server = PrivateRedis().start()
    url = server.url()
    settings.REDIS_URL = url
    settings.CACHES = {alias: {**found, "LOCATION": url} for alias, found in django_settings.CACHES.items()}
    settings.THING_BODY_CACHE_SECONDS = 600
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5
    settings.SEARCH_WINDOW_CACHE_SECONDS = 60
    try:
        yield server
    finally:
        server.stop()


def _snapshot(server) -> dict:
    client = server.client()
    return {key: (client.pttl(key), client.dump(key)) for key in client.keys("*")}


def _restore(server, saved: dict) -> None:
    client = server.client()
    for key, (ttl, value) in saved.items():
        client.restore(key, max(ttl, 0), value, replace=True)


def _warm(api, thing_id) -> list[str]:
    paths = [f"/things/{thing_id}/", "/newest/", f"/search/{WORD}/"]
    for _ in range(3):  # the first read builds and keeps; the next ones are answered from the cache
        for path in paths:
            response = api.get(path)
            assert response.status_code == 200, (path, response.content)
    assert any(item["id"] == thing_id for item in api.get("/newest/").json())
    return paths


def _assert_gone_everywhere(api, client, thing_id) -> None:
    assert api.get(f"/things/{thing_id}/").status_code == 404
    assert client.get(f"/thing:{thing_id}").status_code == 404
    assert all(item["id"] != thing_id for item in api.get("/newest/").json())
    found = api.get(f"/search/{WORD}/")
    assert found.status_code == 404 or all(item["id"] != thing_id for item in found.json())


@pytest.mark.parametrize("change", ["hidden by a moderator", "deleted by its owner", "made private"])
def test_a_change_made_while_redis_was_down_holds_once_it_is_back_with_its_old_data(
    private_redis, api, client, client_for, other_user, change, django_capture_on_commit_callbacks
):
    thing = ThingFactory(creator=other_user, name=f"A {WORD} bracket")
    other = ThingFactory(creator=other_user, name=f"Another {WORD} bracket")  # search still finds one
    thing_reindex(thing_ids=[thing.pk, other.pk])
    _warm(api, thing.pk)
    assert cache.get(f"thing-body:{thing.pk}") is not None  # the body is kept in the private Redis
    saved = _snapshot(private_redis)

    private_redis.stop()
    with django_capture_on_commit_callbacks(execute=True):  # whatever is sent to Redis on commit fails
        if change == "hidden by a moderator":
            moderation_hide(obj=thing, reason="spam", by=UserFactory(is_staff=True))
            services.thing_hidden_changed(thing=thing)
        elif change == "deleted by its owner":
            assert client_for(other_user).delete(f"/things/{thing.pk}/").status_code == 200
        else:
            thing.is_private = True
            thing.save(update_fields=["is_private"])  # the admin's change form
    private_redis.start()
    _restore(private_redis, saved)
    assert cache.get(f"thing-body:{thing.pk}") is not None  # the old entries are back

    _assert_gone_everywhere(api, client, thing.pk)
