"""POST/DELETE /users/{username}/followers (spec §4.1, §7: following oneself is 400)."""

import pytest

from apps.accounts.models import Follow
from apps.activity.models import Event
from apps.accounts.tests.factories import FollowFactory
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db


def test_post_follows_and_records_an_event(api, user, other_user):
    response = api.post(f"/users/{other_user.username}/followers")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert Follow.objects.filter(follower=user, followed=other_user).exists()
    assert Event.objects.filter(recipient=other_user, actor=user, kind="follow").count() == 1


def test_following_twice_is_ok_and_records_one_event(api, user, other_user):
    api.post(f"/users/{other_user.username}/followers/")
    assert api.post(f"/users/{other_user.username}/followers").json() == {"ok": True}
    assert Follow.objects.count() == 1
    assert Event.objects.count() == 1


def test_delete_unfollows(api, user, other_user):
    FollowFactory(follower=user, followed=other_user)
    response = api.delete(f"/users/{other_user.username}/followers")
    assert response.json() == {"ok": True}
    assert not Follow.objects.exists()


def test_delete_when_not_following_is_ok(api, other_user):
    assert api.delete(f"/users/{other_user.username}/followers").json() == {"ok": True}


def test_it_rejects_following_oneself(api, user):
    body = assert_error(api.post("/users/me/followers"), 400, "RULE_VIOLATION")
    assert body["error"] == "You cannot follow yourself."
    assert_error(api.post(f"/users/{user.username}/followers"), 400)
    assert not Follow.objects.exists()


def test_a_body_is_ignored(api, other_user):
    assert api.post(f"/users/{other_user.username}/followers", {"x": 1}, format="json").status_code == 200


def test_get_is_not_an_endpoint(api, other_user):
    assert api.get(f"/users/{other_user.username}/followers").status_code == 405


@pytest.mark.parametrize("followers", [1, 30])
@pytest.mark.caches_off  # counts the token's lookup on each request
def test_query_count_does_not_grow_with_followers(api, other_user, followers, django_assert_num_queries):
    FollowFactory.create_batch(followers, followed=other_user)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; user by name; SAVEPOINT; SELECT follow; SAVEPOINT; INSERT follow; RELEASE; INSERT event; RELEASE
    with django_assert_num_queries(9):
        assert api.post(f"/users/{other_user.username}/followers").status_code == 200
    # token; user by name; SAVEPOINT; DELETE follow (no cascades from Follow); DELETE its event; RELEASE
    with django_assert_num_queries(6):
        assert api.delete(f"/users/{other_user.username}/followers").status_code == 200
