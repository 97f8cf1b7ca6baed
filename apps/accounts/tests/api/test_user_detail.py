"""GET /users/{username}/ (spec §4.1, §2 User, docs/decisions.md: User)."""

import re

import pytest

from apps.accounts.models import User
from apps.accounts.tests.factories import FollowFactory, UserFactory
from tests.support.api import assert_error, assert_unauthorized

pytestmark = pytest.mark.django_db

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$")
PUBLIC_KEYS = {
    "id",
    "name",
    "first_name",
    "last_name",
    "full_name",
    "url",
    "public_url",
    "thumbnail",
    "cover_image",
    "bio",
    "location",
    "registered",
    "last_active",
    "things",
    "copies",
    "likes",
    "things_url",
    "copies_url",
    "likes_url",
}


def test_me_is_the_token_user_with_the_owner_fields(api, user):
    response = api.get("/users/me/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == PUBLIC_KEYS | {"email", "default_license"}
    assert body["id"] == user.pk
    assert body["name"] == user.username
    assert body["email"] == user.email
    assert body["default_license"] == "cc-sa"
    assert body["full_name"] == f"{user.first_name} {user.last_name}"
    assert body["url"] == f"http://testserver/users/{user.username}"
    assert body["public_url"] == f"http://testserver/@{user.username}"
    assert body["things"] == body["things_url"] == f"http://testserver/users/{user.username}/things"
    assert body["copies_url"] == f"http://testserver/users/{user.username}/copies"
    assert body["likes_url"] == f"http://testserver/users/{user.username}/likes"
    assert ISO.match(body["registered"])
    # The authentication itself noted the activity (spec §2 last_active).
    assert ISO.match(body["last_active"])


def test_another_user_has_no_email_or_default_license(api, other_user):
    response = api.get(f"/users/{other_user.username}/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == PUBLIC_KEYS
    assert body["id"] == other_user.pk
    assert body["bio"] == "Makes things."
    assert body["last_active"] is None  # never used the API


def test_the_lookup_ignores_case(api, other_user):
    response = api.get(f"/users/{other_user.username.upper()}/")
    assert response.json()["id"] == other_user.pk


def test_without_an_avatar_the_thumbnail_is_the_default_image(api, client_for, user):
    body = api.get("/users/me/").json()
    assert body["thumbnail"] == "http://testserver/static/accounts/default-avatar.png"
    assert body["cover_image"] == ""


def test_an_avatar_and_cover_come_from_the_object_store(api, user):
    User.objects.filter(pk=user.pk).update(avatar="avatars/1/a.png", cover="covers/1/c.jpg")
    body = api.get("/users/me/").json()
    assert "avatars/1/a.png" in body["thumbnail"]
    assert "covers/1/c.jpg" in body["cover_image"]


def test_the_default_avatar_is_a_real_png():
    from django.contrib.staticfiles import finders

    path = finders.find("accounts/default-avatar.png")
    assert isinstance(path, str)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_an_unknown_token_is_401(anon_client, user):
    anon_client.credentials(HTTP_AUTHORIZATION="Bearer " + "0" * 32)
    assert_unauthorized(anon_client.get("/users/me/"))


def test_the_token_may_come_in_the_query(api, user):
    token = api.token.token
    from rest_framework.test import APIClient

    response = APIClient().get(f"/users/me/?access_token={token}")
    assert response.json()["id"] == user.pk


def test_a_suspended_user_is_404(api):
    suspended = UserFactory(is_active=False, suspended_reason="spam")
    assert_error(api.get(f"/users/{suspended.username}/"), 404)


@pytest.mark.parametrize("followers", [1, 30])
def test_query_count_does_not_grow_with_followers(api, other_user, followers, django_assert_num_queries):
    FollowFactory.create_batch(followers, followed=other_user)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # 1: the token with its user and application; 2: the user by Lower(username).
    with django_assert_num_queries(2):
        response = api.get(f"/users/{other_user.username}/")
    assert response.status_code == 200


def test_me_needs_only_the_token_query(api, django_assert_num_queries):
    api.get("/users/me/")
    with django_assert_num_queries(1):  # the token with its user and application
        assert api.get("/users/me/").status_code == 200
