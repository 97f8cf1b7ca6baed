"""The ranked window cache of the public search (apps/search/window.py, issue 17) and its invalidation."""
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide
from apps.search import window
from tests.support.api import ids
from apps.search.tests.helpers import indexed_thing
from apps.things import services as thing_services
from apps.things.models import Thing

pytestmark = pytest.mark.django_db


def window_statements(api, path, **params) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        api.get(path, params)
    return [q["sql"] for q in captured.captured_queries if "search_thing" in q["sql"]]


def test_the_second_identical_search_reuses_the_window(api):
    indexed_thing(name="Bracket")
    assert len(window_statements(api, "/search/bracket/")) == 1
    assert window_statements(api, "/search/bracket/") == []


def test_each_sort_and_filter_has_its_own_window(api):
    indexed_thing(name="Bracket", license="gpl")
    api.get("/search/bracket/")
    assert len(window_statements(api, "/search/bracket/", sort="newest")) == 1
    assert len(window_statements(api, "/search/bracket/", license="gpl")) == 1
    assert len(window_statements(api, "/search/brackets/")) == 1  # the term as typed, not its stem


def test_a_thing_published_after_the_window_was_cached_is_found_at_once(api, other_user):
    first = indexed_thing(name="Bracket", like_count=5)
    assert ids(api.get("/search/bracket/")) == [first.pk]
    draft = thing_services.thing_create(creator=other_user, name="Corner bracket", description="Strong.")
    thing_services.thing_publish(thing=draft)
    assert ids(api.get("/search/bracket/")) == [first.pk, draft.pk]


def test_a_thing_renamed_after_the_window_was_cached_is_found_at_once(api, other_user):
    thing = indexed_thing(name="Pulley", creator=other_user)
    api.get("/search/bracket/")
    thing_services.thing_update(thing=thing, data={"name": "Bracket"})
    assert ids(api.get("/search/bracket/")) == [thing.pk]


def test_a_hidden_thing_leaves_the_cached_results_and_their_count_at_once(api):
    kept, hidden = indexed_thing(name="Bracket"), indexed_thing(name="Bracket")
    assert set(ids(api.get("/search/bracket/"))) == {kept.pk, hidden.pk}
    moderation_hide(obj=hidden, reason="spam", by=UserFactory(is_staff=True))
    thing_services.thing_hidden_changed(thing=hidden)
    response = api.get("/search/bracket/", {"per_page": 1})
    assert ids(response) == [kept.pk]
    assert 'rel="next"' not in response.get("Link", "")


def test_a_thing_hidden_behind_the_cache_s_back_never_shows(api):
    # A moderator's hide that has not reached the search row or the cache (a race, or a write that
    # bypassed the services): the page's Things are read with the visibility rule all the same.
    kept, hidden = indexed_thing(name="Bracket", like_count=1), indexed_thing(name="Bracket")
    api.get("/search/bracket/")
    Thing.objects.filter(pk=hidden.pk).update(is_hidden=True)
    assert ids(api.get("/search/bracket/")) == [kept.pk]


def test_a_deleted_thing_leaves_the_results_at_once(api, other_user):
    kept, gone = indexed_thing(name="Bracket"), indexed_thing(name="Bracket", creator=other_user)
    api.get("/search/bracket/")
    thing_services.thing_delete(thing=gone)
    assert ids(api.get("/search/bracket/")) == [kept.pk]


def test_likes_reorder_a_cached_window_only_once_it_expires(api, user):
    # docs/decisions.md: counters do not start a new generation; the order lags by the cache's lifetime.
    liked, other = indexed_thing(name="Bracket", like_count=5), indexed_thing(name="Bracket", like_count=4)
    assert ids(api.get("/search/bracket/")) == [liked.pk, other.pk]
    for fan in UserFactory.create_batch(2):
        thing_services.thing_like(user=fan, thing=other)
    assert ids(api.get("/search/bracket/")) == [liked.pk, other.pk]
    cache.clear()  # the window expired
    assert ids(api.get("/search/bracket/")) == [other.pk, liked.pk]


def test_staff_searches_are_never_served_from_the_cache(client_for):
    staff_api = client_for(UserFactory(is_staff=True))
    hidden = indexed_thing(name="Bracket", is_hidden=True)
    indexed_thing(name="Bracket")
    assert hidden.pk in ids(staff_api.get("/search/bracket/"))
    assert len(window_statements(staff_api, "/search/bracket/")) == 1


def test_a_library_search_is_never_cached(api, user):
    indexed_thing(name="Bracket", creator=user, is_published=False)
    api.get("/search/bracket/library")
    assert len(window_statements(api, "/search/bracket/library")) == 1


def test_with_the_cache_off_every_search_computes_its_window(api, settings):
    settings.SEARCH_WINDOW_CACHE_SECONDS = 0
    indexed_thing(name="Bracket")
    api.get("/search/bracket/")
    assert len(window_statements(api, "/search/bracket/")) == 1


def test_without_redis_search_still_answers(api, settings):
    dead = {"BACKEND": "apps.core.cache.failopen.FailOpenRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}}
    settings.CACHES = {"default": dead, "state": dead}  # both aliases are the one Redis
    thing = indexed_thing(name="Bracket")
    assert ids(api.get("/search/bracket/")) == [thing.pk]
    assert ids(api.get("/search/bracket/")) == [thing.pk]


def test_a_window_of_an_older_generation_is_stale():
    key = window.window_key("things", "bracket")
    assert window.window_get(key)[0] is None
    _, generation = window.window_get(key)
    window.window_set(key, [1, 2], generation)
    assert window.window_get(key) == ([1, 2], generation)
    window.search_generation_bump()
    assert window.window_get(key)[0] is None


def test_the_window_statement_carries_its_values_so_it_is_never_planned_generically(api, settings):
    # docs/performance.md: a prepared statement's generic plan cannot tell a rare term from a common one.
    settings.SEARCH_WINDOW_CACHE_SECONDS = 0
    indexed_thing(name="Bracket", license="gpl")
    (statement,) = window_statements(api, "/search/bracket/", license="gpl")
    assert "websearch_to_tsquery('english', 'bracket')" in statement and "license = 'gpl'" in statement
