"""A release's caches and ETags are its own (config.release, docs/decisions.md: "A release's caches and
ETags are its own"). Two releases sharing a Redis (an upgrade's old processes still serving, a restart
within the cache's lifetime) never answer from each other's derived entries, and a client's ETag from
one release is not answered 304 by another, whose body may have another shape; an If-Match from the
release before still holds a write (an upgrade changes no Thing). What must outlive a release (the
failed-credential locks, the checkout's one-time nonces) is kept under keys without it."""
import pytest
from django.core.cache import cache, caches

from apps.core.security.throttle import locked_for
from apps.oauth.rules import LOGIN_ACCOUNT_LIMIT
from apps.core.security.throttle import failure_record
from apps.things.bodycache import body_key
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from config.release import release_fingerprint

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _caches_on(settings):
    settings.THING_BODY_CACHE_SECONDS = 600
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5


def _release(settings, name: str) -> None:
    """This process now runs release `name` (what an upgrade's new processes are), on the same Redis."""
    settings.THINGYARD_RELEASE = name
    settings.CACHES = {**settings.CACHES, "default": {**settings.CACHES["default"], "VERSION": name}}


def test_the_fingerprint_is_the_code(tmp_path):
    (tmp_path / "apps" / "things" / "tests").mkdir(parents=True)
    (tmp_path / "config").mkdir()
    (tmp_path / "apps" / "things" / "serializers.py").write_text("SHAPE = 1\n")
    (tmp_path / "config" / "settings.py").write_text("X = 1\n")
    first = release_fingerprint(tmp_path)
    assert release_fingerprint(tmp_path) == first  # every process of a release agrees
    (tmp_path / "apps" / "things" / "tests" / "test_x.py").write_text("def test(): pass\n")
    assert release_fingerprint(tmp_path) == first  # tests are not the product
    (tmp_path / "apps" / "things" / "serializers.py").write_text("SHAPE = 2\n")
    assert release_fingerprint(tmp_path) != first


def test_another_release_does_not_read_this_ones_bodies(api, other_user, settings):
    thing = ThingFactory(creator=other_user, name="Mine")
    _release(settings, "old")
    assert api.get(f"/things/{thing.pk}/").json()["name"] == "Mine"
    # The old release's entry, current by the Thing's version, but of the old release's shape.
    version = Thing.objects.values_list("version", flat=True).get(pk=thing.pk)
    cache.set(body_key(thing.pk), (version, None, b'{"name":"Old shape"}'), 600)
    assert api.get(f"/things/{thing.pk}/").content == b'{"name":"Old shape"}'
    _release(settings, "new")
    answer = api.get(f"/things/{thing.pk}/")
    assert answer.json()["name"] == "Mine" and not getattr(answer, "thingyard_from_cache", False)
    again = api.get(f"/things/{thing.pk}/")
    assert again.content == answer.content and again.thingyard_from_cache  # this release's own entry
    for path in ("/newest/", f"/users/{other_user.username}/things"):
        api.get(path)
        _release(settings, "newer")
        assert not getattr(api.get(path), "thingyard_from_cache", False), path


def test_an_etag_of_another_release_is_not_answered_304_but_holds_a_write(api, user, settings):
    thing = ThingFactory(creator=user, name="Before")
    _release(settings, "old")
    etag = api.get(f"/things/{thing.pk}/")["ETag"]
    assert api.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    _release(settings, "new")
    fresh = api.get(f"/things/{thing.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and fresh["ETag"] != etag
    written = api.patch(f"/things/{thing.pk}/", {"name": "After"}, format="json", HTTP_IF_MATCH=etag)
    assert written.status_code == 200 and written.json()["name"] == "After"
    stale = api.patch(f"/things/{thing.pk}/", {"name": "Lost"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412  # the Thing changed: the old version holds nothing any more
    assert api.patch(f"/things/{thing.pk}/", {"name": "Weak"}, format="json",
                     HTTP_IF_MATCH=f"W/{written['ETag']}").status_code == 412  # If-Match compares strongly


def test_the_etag_names_the_wire_version(api, user):
    thing = ThingFactory(creator=user)
    spec = api.get(f"/things/{thing.pk}/")
    live = api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION="thingiverse")
    assert spec["ETag"] != live["ETag"]
    assert api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION="thingiverse",
                   HTTP_IF_NONE_MATCH=spec["ETag"]).status_code == 200  # the other shape is not "not modified"
    assert "Thingyard-Version" in spec["Vary"] and "Authorization" in spec["Vary"]


def test_a_lock_outlives_a_release(settings):
    _release(settings, "old")
    for _ in range(LOGIN_ACCOUNT_LIMIT.limit):
        failure_record(LOGIN_ACCOUNT_LIMIT, "someone")
    assert locked_for(LOGIN_ACCOUNT_LIMIT, "someone") > 0
    _release(settings, "new")
    assert locked_for(LOGIN_ACCOUNT_LIMIT, "someone") > 0
    assert caches["state"].key_prefix == caches["default"].key_prefix == settings.CACHE_KEY_PREFIX


def test_the_settings_give_the_derived_caches_the_release_and_the_state_none(settings):
    assert caches["default"].version == settings.THINGYARD_RELEASE != ""
    assert caches["state"].version == 1  # Django's default: the keys every release before this one used
    assert set(settings.CACHES) == {"default", "state"}


def test_every_entry_a_read_keeps_carries_the_release_but_the_token_rows(api, other_user, settings):
    import redis

    thing = ThingFactory(creator=other_user)
    for path in (f"/things/{thing.pk}/", "/newest/", "/search/thing/", "/popular/"):
        api.get(path)
        api.get(path)
    keys = [k.decode() for k in redis.Redis.from_url(settings.REDIS_URL).scan_iter("*")]
    prefix = settings.CACHE_KEY_PREFIX
    state = [k for k in keys if k.startswith(f"{prefix}:1:")]
    derived = [k for k in keys if ":ratelimit:" not in k and k not in state]
    assert derived and all(k.startswith(f"{prefix}:{settings.THINGYARD_RELEASE}:") for k in derived), keys
    assert state and all(k.startswith(f"{prefix}:1:oauth-token:") for k in state), state  # the token rows


def test_a_token_revoked_by_one_release_is_refused_by_the_other(settings):
    """Token rows are kept under one key for every release (an upgrade's old and new processes serve side by
    side): a revocation handled by either drops the row both read."""
    from rest_framework.test import APIClient

    from apps.oauth.tests.factories import AccessTokenFactory

    token = AccessTokenFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.token}")
    _release(settings, "new")
    assert client.get("/users/me").status_code == 200
    assert client.get("/users/me").status_code == 200  # the row from the cache
    _release(settings, "old")
    token.revoke()  # handled by the old release's process
    _release(settings, "new")
    assert client.get("/users/me").status_code == 401


def test_a_token_row_cached_in_another_shape_is_a_miss_never_misread(api, user):
    from apps.oauth.selectors import token_cache, token_cache_key, token_checksum

    for _ in range(3):  # the first requests stamp last_active and the app's last use, dropping the row
        assert api.get("/users/me").status_code == 200
    key = token_cache_key(token_checksum(api.token.token))
    shape, row = token_cache().get(key)
    token_cache().set(key, ("another", tuple(reversed(row))), 5)  # another release's tuple
    me = api.get("/users/me")
    assert me.status_code == 200 and me.json()["id"] == user.pk
    assert token_cache().get(key)[0] == shape  # read from the database and kept again in this shape
