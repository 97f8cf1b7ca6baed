"""POST/DELETE /users/{username}/followers (spec §4.1, §7: following oneself is 400), and the live
service's lists GET /users/{username}/followers and /following (docs/decisions.md, 2026-11-29)."""

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


def test_get_lists_the_active_followers_latest_first(api, user, other_user):
    from apps.accounts.tests.factories import UserFactory

    first, second, suspended = (UserFactory(username=name) for name in ("ann", "bob", "gone"))
    for follower in (first, second, suspended, user):
        FollowFactory(follower=follower, followed=other_user)
    suspended.is_active = False
    suspended.save(update_fields=["is_active"])
    response = api.get(f"/users/{other_user.username}/followers", {"per_page": 2})
    assert response.status_code == 200
    assert [u["name"] for u in response.json()] == [user.username, "bob"]
    assert set(response.json()[0]) == {"id", "name", "first_name", "last_name", "url", "public_url", "thumbnail"}
    assert 'rel="next"' in response["Link"]
    assert [u["name"] for u in api.get(f"/users/{other_user.username}/followers", {"page": 2, "per_page": 2}).json()] == ["ann"]
    assert api.get("/users/me/followers").json() == []


def test_following_lists_whom_the_user_follows(api, user, other_user):
    from apps.accounts.tests.factories import UserFactory

    FollowFactory(follower=user, followed=other_user)
    FollowFactory(follower=user, followed=UserFactory(username="later"))
    FollowFactory(follower=other_user, followed=user)  # the other direction is not listed
    assert [u["name"] for u in api.get("/users/me/following").json()] == ["later", other_user.username]
    assert [u["name"] for u in api.get(f"/users/{other_user.username}/following/").json()] == [user.username]
    assert_error(api.get("/users/nobody-here/following"), 404)


@pytest.mark.parametrize("rows", [1, 30])
def test_the_lists_cost_the_same_queries_for_1_and_30_users(api, other_user, rows, django_assert_num_queries):
    FollowFactory.create_batch(rows, followed=other_user)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # the token with its user, the user by name, the count, the page of users (the follow joined)
    with django_assert_num_queries(4):
        assert len(api.get(f"/users/{other_user.username}/followers").json()) == rows


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
