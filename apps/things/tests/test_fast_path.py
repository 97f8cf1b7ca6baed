"""Reads answered from the cache (issues 17, 24): GET /things/{id}/ and the kept pages of /newest/,
/popular/, /featured/ and /search/{term}/, through the one pipeline (apps.core.pipeline.views.ApiView; the token's
row, the rate-limit count and the view's entries in one round trip: apps.oauth.fastpath).

Every answer read from the cache is the one built fresh (the same bytes and headers), each request counts
once against the rate limit however it is answered, and after every change that matters (the viewer's
like or watch, a revoked or expired token, a suspended user, a Thing unpublished, hidden or published, a
like on a listed Thing, the popular page's age) the next read is right.
"""
import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from apps.core.domain.moderation import moderation_hide
from apps.core.pipeline.views import ApiView
from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import AccessTokenFactory
from apps.search.tests.helpers import indexed_thing
from apps.search.window import window_cache_seconds
from apps.things import bodies, services
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _caches_on(settings):
    settings.THING_BODY_CACHE_SECONDS = 600
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5


@pytest.fixture
def dispatched(monkeypatch):
    """The API views that answered a body they built (not read from the cache), by name; every request,
    cached or not, goes through ApiView's dispatch (issue 24: one pipeline)."""
    calls: list[str] = []
    original = ApiView.finalize_response

    def spy(self, request, response, *args, **kwargs):
        response = original(self, request, response, *args, **kwargs)
        if not getattr(response, "thingyard_from_cache", False):
            calls.append(type(self).__name__)
        return response

    monkeypatch.setattr(ApiView, "finalize_response", spy)
    return calls


@pytest.fixture
def thing(other_user):
    return ThingFactory(creator=other_user, tags=["b", "a"])


def read(client, path, dispatched):
    """(status, body, headers but the remaining count, remaining count, whether DRF answered)."""
    dispatched.clear()
    response = client.get(path)
    headers = {k: v for k, v in response.headers.items() if k != "X-RateLimit-Remaining"}
    return response.status_code, response.content, headers, response.headers.get("X-RateLimit-Remaining"), bool(
        dispatched
    )


def warm(client, path, dispatched):
    """Read until the fast path answers (the first reads stamp the token's use and fill the caches)."""
    for _ in range(5):
        got = read(client, path, dispatched)
        if not got[4]:
            return got
    raise AssertionError(f"{path} never answered from the cache")


def full_path(client, path, settings, dispatched):
    settings.THING_BODY_CACHE_SECONDS = 0  # bodies and pages off: the answer is built
    try:
        got = read(client, path, dispatched)
        assert got[4]
        return got
    finally:
        settings.THING_BODY_CACHE_SECONDS = 600


# --- detail ------------------------------------------------------------------------------------------


def test_a_cached_detail_is_answered_without_drf_byte_for_byte(api, settings, thing, dispatched):
    fast = warm(api, f"/things/{thing.pk}/", dispatched)
    full = full_path(api, f"/things/{thing.pk}/", settings, dispatched)
    assert fast[:3] == full[:3]
    assert fast[0] == 200 and "X-RateLimit-Limit" in fast[2] and fast[2]["Cache-Control"] == "private, no-store"


def test_every_request_counts_once_whichever_path_answers(api, settings, thing, dispatched,
                                                          django_capture_on_commit_callbacks):
    path = f"/things/{thing.pk}/"
    remaining = [int(read(api, path, dispatched)[3]) for _ in range(4)]
    with django_capture_on_commit_callbacks(execute=True):
        services.thing_update(thing=thing, data={"name": "Renamed"})  # the next read misses, then falls back
    remaining += [int(read(api, path, dispatched)[3]) for _ in range(2)]
    assert remaining == list(range(remaining[0], remaining[0] - 6, -1))


def test_the_viewers_own_like_and_watch_show_at_once(api, client_for, user, other_user, thing, dispatched,
                                                      django_capture_on_commit_callbacks):
    path = f"/things/{thing.pk}/"
    theirs = client_for(UserFactory())
    warm(api, path, dispatched)
    warm(theirs, path, dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        services.thing_like(user=user, thing=thing)
    body = json.loads(warm(api, path, dispatched)[1])
    assert (body["is_liked"], body["is_watched"], body["like_count"]) == (True, False, 1)
    with django_capture_on_commit_callbacks(execute=True):
        services.thing_toggle_watch(user=user, thing=thing)
    body = json.loads(warm(api, path, dispatched)[1])
    assert (body["is_liked"], body["is_watched"]) == (True, True)
    other = json.loads(warm(theirs, path, dispatched)[1])
    assert (other["is_liked"], other["is_watched"], other["like_count"]) == (False, False, 1)


def test_a_revoked_token_is_refused_at_once(api, thing, dispatched, django_capture_on_commit_callbacks):
    warm(api, f"/things/{thing.pk}/", dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        api.token.delete()
    assert api.get(f"/things/{thing.pk}/").status_code == 401


def test_a_suspended_user_is_refused_at_once(api, user, thing, dispatched, django_capture_on_commit_callbacks):
    warm(api, f"/things/{thing.pk}/", dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        user.is_active = False
        user.save()
    assert api.get(f"/things/{thing.pk}/").status_code == 401


def test_an_expired_token_is_refused(api, thing, dispatched, monkeypatch):
    warm(api, f"/things/{thing.pk}/", dispatched)
    later = timezone.now() + timedelta(days=2)  # the factory's tokens live one day
    monkeypatch.setattr("apps.oauth.selectors.timezone.now", lambda: later)
    status, _, _, _, drf = read(api, f"/things/{thing.pk}/", dispatched)
    assert (status, drf) == (401, True)


def test_an_apps_own_token_goes_the_full_way(client_for, thing, dispatched, application):
    from tests.support.api import bearer_client

    app_token = bearer_client(AccessTokenFactory(user=None, application=application))
    for _ in range(3):
        status, _, _, _, drf = read(app_token, f"/things/{thing.pk}/", dispatched)
        assert (status, drf) == (403, True)


def test_over_the_rate_limit_is_429_counted_once(api, settings, thing, dispatched):
    settings.RATE_LIMIT_REQUESTS = 6
    path = f"/things/{thing.pk}/"
    warm(api, path, dispatched)
    statuses = [api.get(path) for _ in range(8)]
    codes = [r.status_code for r in statuses]
    assert codes.count(429) >= 2 and codes[-1] == 429
    assert statuses[-1]["X-RateLimit-Remaining"] == "0" and int(statuses[-1]["Retry-After"]) >= 1
    first_429 = codes.index(429)
    assert all(code == 200 for code in codes[:first_429])


def test_a_thing_unpublished_or_hidden_after_caching_keeps_its_access_matrix(
    api, other_user, thing, dispatched, django_capture_on_commit_callbacks
):
    path = f"/things/{thing.pk}/"
    warm(api, path, dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        thing.is_published = False
        thing.save()
    assert read(api, path, dispatched)[0] == 403
    other = ThingFactory(creator=other_user)
    warm(api, f"/things/{other.pk}/", dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        moderation_hide(obj=other, reason="spam", by=None)
    assert read(api, f"/things/{other.pk}/", dispatched)[:1] == (404,)


def test_json_p_wraps_the_same_body_however_it_was_read(api, thing, dispatched):
    """One pipeline: a JSON-P read of a cached body is that body wrapped."""
    path = f"/things/{thing.pk}/"
    plain = warm(api, path, dispatched)
    status, body, headers, _, _ = read(api, path + "?callback=cb", dispatched)
    assert status == 200 and body == b"/**/cb(" + plain[1] + b");"
    assert headers["Content-Type"].startswith("application/javascript")
    assert read(api, path + "?format=json", dispatched)[0] == 200


def test_a_due_last_active_stamp_is_written_by_the_full_path(api, user, thing, dispatched):
    path = f"/things/{thing.pk}/"
    warm(api, path, dispatched)
    type(user).objects.filter(pk=user.pk).update(last_active=timezone.now() - timedelta(hours=1))
    from apps.oauth.selectors import token_cache_drop

    token_cache_drop(api.token.token)  # the cached row now holds the old stamp once read again
    cache.delete(f"last-active:{user.pk}")  # the five-minute write gate (apps.oauth.authentication)
    read(api, path, dispatched)  # refills the row (its last_active is an hour old)…
    user.refresh_from_db()
    assert timezone.now() - user.last_active < timedelta(minutes=1)  # …and the full path stamped it


# --- list pages ----------------------------------------------------------------------------------------


@pytest.fixture
def catalogue(other_user):
    return [ThingFactory(creator=other_user) for _ in range(7)]


@pytest.mark.parametrize("path", ["/newest/?per_page=5", "/newest/?page=2&per_page=5", "/popular/", "/featured/"])
def test_a_kept_page_is_answered_without_drf_byte_for_byte(api, settings, catalogue, dispatched, path):
    for thing in catalogue[:3]:
        type(thing).objects.filter(pk=thing.pk).update(is_featured=True, featured_at=timezone.now())
    fast = warm(api, path, dispatched)
    full = full_path(api, path, settings, dispatched)
    assert fast[:3] == full[:3]
    assert "Link" in fast[2]


def test_a_newly_published_thing_shows_on_the_next_read(api, other_user, catalogue, dispatched,
                                                         django_capture_on_commit_callbacks):
    warm(api, "/newest/?per_page=5", dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        draft = ThingFactory(creator=other_user, is_published=False)
    with django_capture_on_commit_callbacks(execute=True):
        services.thing_publish(thing=draft)
    ids = [t["id"] for t in json.loads(read(api, "/newest/?per_page=5", dispatched)[1])]
    assert draft.pk in ids


def test_an_unpublished_or_hidden_thing_leaves_the_page_at_once(api, catalogue, dispatched,
                                                                 django_capture_on_commit_callbacks):
    warm(api, "/newest/?per_page=5", dispatched)
    first, second = sorted(catalogue, key=lambda t: (t.added, t.pk), reverse=True)[:2]
    with django_capture_on_commit_callbacks(execute=True):
        first.is_published = False
        first.save()
    with django_capture_on_commit_callbacks(execute=True):
        moderation_hide(obj=second, reason="spam", by=None)
    ids = [t["id"] for t in json.loads(read(api, "/newest/?per_page=5", dispatched)[1])]
    assert first.pk not in ids and second.pk not in ids


def test_a_like_on_a_listed_thing_shows_on_the_page(api, user, catalogue, dispatched,
                                                    django_capture_on_commit_callbacks):
    warm(api, "/newest/?per_page=10", dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        services.thing_like(user=user, thing=catalogue[0])
    page = json.loads(read(api, "/newest/?per_page=10", dispatched)[1])
    assert {t["id"]: t["like_count"] for t in page}[catalogue[0].pk] == 1


def test_the_popular_page_is_rebuilt_after_its_age(api, catalogue, dispatched, monkeypatch):
    warm(api, "/popular/", dispatched)
    now = bodies.time.time()
    monkeypatch.setattr(bodies.time, "time", lambda: now + bodies.POPULAR_PAGE_SECONDS + 1)
    assert read(api, "/popular/", dispatched)[4]  # rebuilt by the full path


def test_staff_see_hidden_things_never_from_a_kept_page(client_for, other_user, catalogue, dispatched,
                                                        django_capture_on_commit_callbacks):
    staff = client_for(UserFactory(is_staff=True))
    reader = client_for(UserFactory())
    with django_capture_on_commit_callbacks(execute=True):
        moderation_hide(obj=catalogue[-1], reason="spam", by=None)
    warm(reader, "/newest/?per_page=20", dispatched)
    for _ in range(3):
        status, body, _, _, drf = read(staff, "/newest/?per_page=20", dispatched)
        assert drf and catalogue[-1].pk in [t["id"] for t in json.loads(body)]


def test_a_bad_page_parameter_is_the_full_paths_400(api, catalogue, dispatched):
    warm(api, "/newest/", dispatched)
    status, _, _, _, drf = read(api, "/newest/?page=two", dispatched)
    assert (status, drf) == (400, True)


# --- search pages (apps.search.keptpages) ----------------------------------------------------------------


@pytest.fixture
def clips(other_user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return [indexed_thing(creator=other_user, name=f"Cable clip {n}") for n in range(4)]


def test_a_kept_search_page_is_answered_without_drf_byte_for_byte(api, settings, clips, dispatched):
    fast = warm(api, "/search/cable+clip/?per_page=3", dispatched)
    full = full_path(api, "/search/cable+clip/?per_page=3", settings, dispatched)
    assert fast[:3] == full[:3] and fast[0] == 200
    assert read(api, "/search/cable+clip/?type=things", dispatched)[4]  # another shape: the full way


def test_a_search_page_follows_hiding_and_publishing(api, other_user, clips, dispatched,
                                                    django_capture_on_commit_callbacks):
    warm(api, "/search/cable+clip/", dispatched)
    with django_capture_on_commit_callbacks(execute=True):
        moderation_hide(obj=clips[0], reason="spam", by=None)
    with django_capture_on_commit_callbacks(execute=True):
        new = indexed_thing(creator=other_user, name="Cable clip new")
    ids = [t["id"] for t in json.loads(read(api, "/search/cable+clip/", dispatched)[1])]
    assert clips[0].pk not in ids and new.pk in ids


def test_a_search_page_is_kept_no_longer_than_its_window(api, settings, clips, dispatched, monkeypatch):
    warm(api, "/search/cable+clip/", dispatched)
    now = bodies.time.time()
    monkeypatch.setattr(bodies.time, "time", lambda: now + window_cache_seconds() + 1)
    assert read(api, "/search/cable+clip/", dispatched)[4]


def test_a_due_use_stamp_is_written_by_the_one_authentication(api, application, thing, dispatched):
    """A stamp due is written by the authentication whichever way the body is read; it drops the token's
    cached row, so the next requests read the fresh stamp (not the stale row for its remaining lifetime)."""
    from apps.oauth.selectors import token_cache_drop

    path = f"/things/{thing.pk}/"
    warm(api, path, dispatched)
    type(application).objects.filter(pk=application.pk).update(last_used_at=timezone.now() - timedelta(minutes=5))
    token_cache_drop(api.token.token)
    assert read(api, path, dispatched)[0] == 200  # the stamp was due
    application.refresh_from_db()
    assert timezone.now() - application.last_used_at < timedelta(minutes=1)
    assert [read(api, path, dispatched)[4] for _ in range(2)][-1] is False
