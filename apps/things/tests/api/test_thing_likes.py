"""GET/POST/DELETE /things/{id}/likes (spec §4.2, §3: 400 own Thing, 404 missing)."""
import pytest

from apps.activity.models import Event
from apps.accounts.tests.factories import UserFactory
from apps.things.models import Like, Thing
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db

USER_SUMMARY_KEYS = {"id", "name", "first_name", "last_name", "url", "public_url", "thumbnail"}


@pytest.fixture
def thing(other_user):
    return ThingFactory(creator=other_user)


def test_post_likes_counts_and_notifies_the_creator(api, user, other_user, thing):
    response = api.post(f"/things/{thing.pk}/likes")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert Like.objects.filter(user=user, thing=thing).exists()
    assert Thing.objects.get(pk=thing.pk).like_count == 1
    event = Event.objects.get()
    assert (event.recipient, event.actor, event.kind, event.target_type, event.target_id) == (
        other_user, user, "like", "thing", thing.pk
    )
    body = api.get(f"/things/{thing.pk}/").json()
    assert (body["is_liked"], body["like_count"]) == (True, 1)


def test_liking_twice_is_ok_and_counts_once(api, thing):
    api.post(f"/things/{thing.pk}/likes")
    assert api.post(f"/things/{thing.pk}/likes/").json() == {"ok": True}
    assert Thing.objects.get(pk=thing.pk).like_count == 1
    assert Event.objects.count() == 1


def test_delete_unlikes_and_repeating_it_is_ok(api, thing):
    api.post(f"/things/{thing.pk}/likes")
    assert api.delete(f"/things/{thing.pk}/likes").json() == {"ok": True}
    assert api.delete(f"/things/{thing.pk}/likes").json() == {"ok": True}
    assert not Like.objects.exists()
    assert Thing.objects.get(pk=thing.pk).like_count == 0


@pytest.mark.parametrize("method", ["post", "delete"])
def test_liking_ones_own_thing_is_400(api, user, method):
    own = ThingFactory(creator=user)
    body = assert_error(getattr(api, method)(f"/things/{own.pk}/likes"), 400, "RULE_VIOLATION")
    assert body["error"] == "You cannot like your own Thing."
    assert not Like.objects.exists()


def test_get_lists_the_likers_newest_first(api, thing):
    first, second = UserFactory(), UserFactory()
    Like.objects.create(user=first, thing=thing)
    Like.objects.create(user=second, thing=thing)
    response = api.get(f"/things/{thing.pk}/likes")
    assert response.status_code == 200
    body = response.json()
    assert [u["id"] for u in body] == [second.pk, first.pk]
    assert set(body[0]) == USER_SUMMARY_KEYS
    assert 'rel="first"' in response["Link"]


def test_get_leaves_out_suspended_likers(api, thing):
    suspended = UserFactory(is_active=False)
    Like.objects.create(user=suspended, thing=thing)
    assert api.get(f"/things/{thing.pk}/likes").json() == []


@pytest.mark.parametrize("rows", [1, 30])
def test_get_query_count_does_not_grow(api, thing, rows, django_assert_num_queries):
    for liker in UserFactory.create_batch(rows):
        Like.objects.create(user=liker, thing=thing)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing; COUNT likers; SELECT likers
    with django_assert_num_queries(4):
        assert len(api.get(f"/things/{thing.pk}/likes").json()) == rows


def test_post_query_count(api, thing, django_assert_num_queries):
    api.get("/users/me/")
    # token; Thing; SAVEPOINT; lock Thing; like exists?; INSERT like; UPDATE like_count; INSERT event; the apps
    # subscribed to the creator's thing_liked (webhooks, none here); INSERT notification … ON CONFLICT DO
    # NOTHING; UPDATE the creator's unread count; RELEASE
    with django_assert_num_queries(12):
        assert api.post(f"/things/{thing.pk}/likes").status_code == 200
