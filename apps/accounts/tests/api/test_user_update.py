"""PATCH /users/{username}/ (spec §4.1: first_name, last_name, bio, location, default_license)."""

import json

import pytest

from tests.support.api import assert_error

pytestmark = pytest.mark.django_db


def test_it_updates_the_given_fields_and_returns_the_user(api, user):
    response = api.patch(
        "/users/me/", {"first_name": "Ada", "bio": "Prints gears.", "default_license": "cc-nc"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["first_name"], body["bio"], body["default_license"]) == ("Ada", "Prints gears.", "cc-nc")
    user.refresh_from_db()
    assert (user.first_name, user.bio, user.default_license, user.location) == (
        "Ada",
        "Prints gears.",
        "cc-nc",
        "Earth",
    )


def test_it_works_by_name_and_without_the_trailing_slash(api, user):
    response = api.patch(f"/users/{user.username}", {"location": "Mars"}, format="json")
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.location == "Mars"


def test_fields_can_be_cleared(api, user):
    assert api.patch("/users/me/", {"bio": "", "location": ""}, format="json").status_code == 200
    user.refresh_from_db()
    assert (user.bio, user.location) == ("", "")


def test_json_labelled_as_a_form_is_read_as_json(api, user):
    # docs/decisions.md (compat): clients send JSON with a form content type.
    response = api.patch(
        "/users/me/", json.dumps({"last_name": "Lovelace"}), content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.last_name == "Lovelace"


@pytest.mark.parametrize("body", ["", "null", "{}"])
def test_an_empty_body_changes_nothing(api, user, body):
    response = api.generic("PATCH", "/users/me/", body, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["bio"] == "Makes things."


def test_unknown_fields_are_ignored(api, user):
    response = api.patch(
        "/users/me/", {"name": "renamed", "email": "x@evil.test", "bio": "ok"}, format="json"
    )
    assert response.status_code == 200
    user.refresh_from_db()
    assert (user.username, user.bio) == (response.json()["name"], "ok")
    assert user.email != "x@evil.test"


def test_an_unknown_license_is_400(api, user):
    body = assert_error(
        api.patch("/users/me/", {"default_license": "cc-by"}, format="json"), 400, "VALIDATION_FAILED"
    )
    assert list(body["errors"]) == ["default_license"]
    user.refresh_from_db()
    assert user.default_license == "cc-sa"


@pytest.mark.parametrize(
    "field,limit", [("first_name", 150), ("last_name", 150), ("bio", 4000), ("location", 100)]
)
def test_over_long_fields_are_400(api, user, field, limit):
    assert api.patch("/users/me/", {field: "x" * limit}, format="json").status_code == 200
    body = assert_error(api.patch("/users/me/", {field: "x" * (limit + 1)}, format="json"), 400)
    assert list(body["errors"]) == [field]


@pytest.mark.parametrize("field,limit", [("bio", 4000), ("location", 100)])
@pytest.mark.parametrize("padding", [" ", "\n", "\t"])
def test_the_limit_counts_the_text_as_sent_its_surrounding_whitespace_included(api, user, field, limit, padding):
    # The OpenAPI document's maxLength describes the request: a value over it is refused even when what
    # is left after trimming would fit (a Schemathesis finding); nothing of it is stored.
    body = assert_error(api.patch("/users/me/", {field: "ab" + padding * (limit - 1)}, format="json"), 400)
    assert body["errors"] == {field: [f"Ensure this field has no more than {limit} characters."]}
    user.refresh_from_db()
    assert user.bio == "Makes things."
    # At the limit, the surrounding whitespace is trimmed as before.
    assert api.patch("/users/me/", {field: " ab" + padding * (limit - 3)}, format="json").status_code == 200
    user.refresh_from_db()
    assert getattr(user, field) == "ab"


@pytest.mark.parametrize("value", [42, ["a"], {"a": 1}, True, None])
def test_a_non_string_bio_is_400(api, user, value):
    body = assert_error(api.patch("/users/me/", {"bio": value}, format="json"), 400, "VALIDATION_FAILED")
    assert list(body["errors"]) == ["bio"]
    user.refresh_from_db()
    assert user.bio == "Makes things."


def test_a_nul_character_is_400_not_500(api):
    assert_error(api.patch("/users/me/", {"location": "a\x00b"}, format="json"), 400)


@pytest.mark.parametrize("raw", ['{"bio": ', '["bio"]', '"bio"', "{'bio': 1}"])
def test_a_malformed_or_non_object_body_is_400(api, raw):
    assert_error(api.generic("PATCH", "/users/me/", raw, content_type="application/json"), 400)


def test_query_count(api, django_assert_num_queries, settings):
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # 1: the token with its user and application; 2: UPDATE of the changed columns; with the token cache
    # on (production), 3: the user's token checksums, whose cached rows the save drops (apps.oauth.signals).
    with django_assert_num_queries(3 if settings.OAUTH_TOKEN_CACHE_SECONDS else 2):
        assert api.patch("/users/me/", {"bio": "New"}, format="json").status_code == 200
