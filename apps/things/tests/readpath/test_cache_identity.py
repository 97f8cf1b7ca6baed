"""Issue 24: every key the read path writes to Redis carries the instance's identity (settings
CACHE_KEY_PREFIX, by default derived from the database), so two instances sharing a Redis (bench servers
on different catalogues, staging beside production) never answer from each other's entries."""
import pytest
import redis
from django.conf import settings
from django.core.cache import cache

from apps.things.tests.factories import ThingFactory
from config.settings.base import cache_key_prefix

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _caches_on(settings):
    settings.THING_BODY_CACHE_SECONDS = 600
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5


def _redis_keys() -> list[str]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    return [k.decode() for k in client.scan_iter("*")]


def test_the_default_prefix_differs_per_database_and_host():
    a = cache_key_prefix({"HOST": "127.0.0.1", "PORT": 5432, "NAME": "thingyard_bench"})
    b = cache_key_prefix({"HOST": "127.0.0.1", "PORT": 5432, "NAME": "thingyard_bench_1m"})
    c = cache_key_prefix({"HOST": "db.internal", "PORT": 5432, "NAME": "thingyard_bench"})
    assert len({a, b, c}) == 3
    assert a == cache_key_prefix({"HOST": "127.0.0.1", "PORT": 5432, "NAME": "thingyard_bench"})
    assert settings.CACHES["default"]["KEY_PREFIX"] == settings.CACHE_KEY_PREFIX


def test_every_key_a_read_writes_carries_the_instance_prefix(api, other_user):
    thing = ThingFactory(creator=other_user)
    for path in (f"/things/{thing.pk}/", f"/things/{thing.pk}/", "/newest/", "/newest/", "/search/thing/",
                 "/featured/", "/popular/"):
        assert api.get(path).status_code in (200, 404)
    keys = _redis_keys()
    assert keys, "the reads kept nothing in Redis"
    stray = [k for k in keys if not k.startswith(settings.CACHE_KEY_PREFIX + ":")]
    assert stray == []


def test_an_instance_with_another_prefix_does_not_read_these_entries(api, other_user, settings):
    thing = ThingFactory(creator=other_user, name="Mine")
    assert api.get(f"/things/{thing.pk}/").json()["name"] == "Mine"
    # Another instance on the same Redis holds the same id with another body: it must not answer ours.
    settings.CACHES = {**settings.CACHES, "default": {**settings.CACHES["default"], "KEY_PREFIX": "tyother"}}
    try:
        cache.set(f"thing-body:{thing.pk}", ("forged", {"name": "Theirs"}, None), 600)
    finally:
        settings.CACHES = {**settings.CACHES,
                           "default": {**settings.CACHES["default"], "KEY_PREFIX": settings.CACHE_KEY_PREFIX}}
    assert api.get(f"/things/{thing.pk}/").json()["name"] == "Mine"
