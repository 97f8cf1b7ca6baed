"""GET /users/{username}/things and /users/{username}/likes (spec §4.1)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Like, Thing
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error, assert_unauthorized, ids
from apps.things.tests.helpers import SHORT_THING_KEYS

pytestmark = pytest.mark.django_db


def test_a_users_things_are_their_published_ones_newest_first(api, other_user):
    older, newer = ThingFactory(creator=other_user), ThingFactory(creator=other_user)
    ThingFactory(creator=other_user, is_published=False)
    ThingFactory()  # someone else's
    response = api.get(f"/users/{other_user.username}/things")
    assert ids(response) == [newer.pk, older.pk]
    assert set(response.json()[0]) == SHORT_THING_KEYS


def test_the_callers_own_list_includes_drafts(api, user):
    published, draft = ThingFactory(creator=user), ThingFactory(creator=user, is_published=False)
    assert ids(api.get("/users/me/things")) == [draft.pk, published.pk]
    assert ids(api.get(f"/users/{user.username.upper()}/things")) == [draft.pk, published.pk]


def test_same_added_time_is_ordered_by_id(api, other_user):
    things = ThingFactory.create_batch(3, creator=other_user)
    Thing.objects.update(added=timezone.now())
    assert ids(api.get(f"/users/{other_user.username}/things")) == [t.pk for t in reversed(things)]


def test_likes_are_the_visible_things_liked_newest_like_first(api, user, other_user):
    a, b = ThingFactory(), ThingFactory()
    hidden = ThingFactory(is_published=False)
    now = timezone.now()
    for thing, minutes in ((b, 3), (a, 2), (hidden, 1)):
        Like.objects.create(user=other_user, thing=thing)
        Like.objects.filter(thing=thing).update(created=now - timedelta(minutes=minutes))
    # b was liked first although created last: the order is the like's.
    assert ids(api.get(f"/users/{other_user.username}/likes")) == [a.pk, b.pk]


def test_the_callers_likes(api, user):
    thing = ThingFactory()
    api.post(f"/things/{thing.pk}/likes")
    assert ids(api.get("/users/me/likes")) == [thing.pk]


@pytest.mark.parametrize("which", ["things", "likes"])
def test_an_unknown_user_is_404_and_anonymous_401(anon_client, api, other_user, which):
    assert_error(api.get(f"/users/nobody-here/{which}"), 404)
    assert_error(api.get(f"/users/{UserFactory(is_active=False).username}/{which}"), 404)
    assert_unauthorized(anon_client.get(f"/users/{other_user.username}/{which}"))


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
@pytest.mark.parametrize("rows", [1, 30])
def test_query_count_does_not_grow(api, other_user, rows, django_assert_num_queries):
    for _thing in ThingFactory.create_batch(rows, creator=other_user):
        Like.objects.create(user=other_user, thing=ThingFactory())
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    for which in ("things", "likes"):
        # token; user by name; COUNT; SELECT Things with creator
        with django_assert_num_queries(4):
            assert len(api.get(f"/users/{other_user.username}/{which}").json()) == rows

def test_the_callers_own_list_needs_no_user_lookup(api, user, django_assert_num_queries):
    ThingFactory.create_batch(2, creator=user)
    api.get("/users/me/")  # warm-up
    # token; COUNT; SELECT Things (`me` is the token's user: no lookup by name)
    with django_assert_num_queries(3):
        assert len(api.get("/users/me/things").json()) == 2
