"""GET /users/{username}/favorites (spec §4.1): a Favorite is a liked Thing, with when it was liked."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Like
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error, assert_unauthorized, ids
from apps.things.tests.helpers import ISO, SHORT_THING_KEYS

pytestmark = pytest.mark.django_db


def _like_at(user, thing, moment):
    Like.objects.create(user=user, thing=thing)
    Like.objects.filter(user=user, thing=thing).update(created=moment)


def test_favorites_are_the_short_things_liked_with_the_like_time(api, other_user):
    thing = ThingFactory()
    moment = timezone.now().replace(microsecond=0) - timedelta(days=2)
    _like_at(other_user, thing, moment)
    Like.objects.create(user=UserFactory(), thing=thing)  # someone else's like is not this Favorite
    response = api.get(f"/users/{other_user.username}/favorites")
    assert response.status_code == 200
    [favorite] = response.json()
    assert set(favorite) == SHORT_THING_KEYS | {"favorited"}
    assert favorite["id"] == thing.pk and favorite["creator"]["id"] == thing.creator_id
    assert ISO.match(favorite["favorited"]) and favorite["favorited"] == moment.isoformat()


def test_favorites_are_the_visible_likes_newest_first_as_the_likes_list(api, other_user):
    a, b = ThingFactory(), ThingFactory()
    draft = ThingFactory(is_published=False)
    now = timezone.now()
    for thing, minutes in ((b, 3), (a, 2), (draft, 1)):
        _like_at(other_user, thing, now - timedelta(minutes=minutes))
    assert ids(api.get(f"/users/{other_user.username}/favorites")) == [a.pk, b.pk]
    assert ids(api.get(f"/users/{other_user.username}/likes")) == [a.pk, b.pk]


def test_the_callers_favorites_follow_their_likes(api, user):
    thing = ThingFactory()
    api.post(f"/things/{thing.pk}/likes")
    assert ids(api.get("/users/me/favorites")) == [thing.pk]
    api.delete(f"/things/{thing.pk}/likes")
    assert api.get("/users/me/favorites").json() == []


def test_favorites_are_paginated(api, other_user):
    for thing in ThingFactory.create_batch(3):
        Like.objects.create(user=other_user, thing=thing)
    response = api.get(f"/users/{other_user.username}/favorites", {"per_page": 2})
    assert len(response.json()) == 2
    assert 'rel="next"' in response["Link"] and 'rel="last"' in response["Link"]


def test_an_unknown_or_suspended_user_is_404_and_anonymous_401(anon_client, api, other_user):
    assert_error(api.get("/users/nobody-here/favorites"), 404, "NOT_FOUND")
    assert_error(api.get(f"/users/{UserFactory(is_active=False).username}/favorites"), 404)
    assert_unauthorized(anon_client.get(f"/users/{other_user.username}/favorites"))


def test_a_bad_page_is_400(api, other_user):
    body = assert_error(api.get(f"/users/{other_user.username}/favorites", {"page": "x"}), 400)
    assert body["type"] == "VALIDATION_FAILED" and list(body["errors"]) == ["page"]


@pytest.mark.parametrize("rows", [1, 30])
def test_query_count_does_not_grow(api, other_user, rows, django_assert_num_queries):
    for thing in ThingFactory.create_batch(rows):
        Like.objects.create(user=other_user, thing=thing)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with django_assert_num_queries(4):  # token; user by name; COUNT; SELECT Things with creator and like time
        assert len(api.get(f"/users/{other_user.username}/favorites").json()) == rows
