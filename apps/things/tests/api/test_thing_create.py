"""POST /things/ (spec §4.2): a new, unpublished Thing."""
import pytest

from apps.things.models import Remix, Tag, Thing
from apps.things.tests.factories import ThingFactory, TagFactory
from tests.support.api import assert_error, assert_unauthorized
from apps.things.tests.helpers import ISO, THING_KEYS

pytestmark = pytest.mark.django_db

BODY = {
    "name": "Cable clip",
    "license": "cc-nc-sa",
    "category": "replacement parts",
    "description": "Holds a 6 mm cable.",
    "instructions": "No supports.",
    "is_wip": True,
    "tags": ["Cable management", "clip", "CLIP", "  desk  "],
}


def test_it_creates_an_unpublished_thing_and_returns_it(api, user):
    response = api.post("/things/", BODY, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == THING_KEYS
    thing = Thing.objects.get()
    assert body["id"] == thing.pk
    assert thing.creator == user
    assert (body["is_published"], thing.is_published, thing.published_at) == (False, False, None)
    assert body["name"] == "Cable clip"
    assert body["license"] == "Creative Commons - Attribution - Non-Commercial - Share Alike"
    assert thing.license == "cc-nc-sa"
    assert body["category"] == "Replacement Parts"
    assert body["description"] == "Holds a 6 mm cable."
    assert body["instructions"] == "No supports."
    assert body["is_wip"] is True
    assert body["tag_names"] == ["Cable_management", "clip", "desk"]
    assert body["like_count"] == 0
    assert (body["is_liked"], body["is_watched"]) == (False, False)
    assert body["url"] == body["public_url"] == f"http://testserver/thing:{thing.pk}"
    assert body["files"] == body["files_url"] == f"http://testserver/things/{thing.pk}/files"
    assert body["tags_url"] == f"http://testserver/things/{thing.pk}/tags"
    assert body["creator"]["id"] == user.pk
    assert ISO.match(body["added"]) and ISO.match(body["modified"])


def test_only_a_name_is_required_and_the_license_defaults_to_the_users(api, user):
    user.default_license = "gpl"
    user.save(update_fields=["default_license"])
    response = api.post("/things/", {"name": "Minimal"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["license"] == "GNU - GPL"
    assert (body["category"], body["description"], body["instructions"]) == (None, "", "")
    assert body["is_wip"] is False
    assert body["tag_names"] == []


def test_a_default_license_that_is_not_a_thing_license_falls_back_to_cc_sa(api, user):
    user.default_license = "cc-nc"  # spec §2: valid for users only
    user.save(update_fields=["default_license"])
    assert api.post("/things/", {"name": "X"}, format="json").json()["license"] == (
        "Creative Commons - Attribution - Share Alike"
    )


def test_an_existing_tag_keeps_its_spelling(api):
    TagFactory(name="Desk")
    response = api.post("/things/", {"name": "X", "tags": ["desk", "new_one"]}, format="json")
    assert response.json()["tag_names"] == ["Desk", "new_one"]
    assert Tag.objects.count() == 2


def test_the_category_is_matched_by_full_name_ignoring_case_or_by_slug(api):
    assert api.post("/things/", {"name": "X", "category": "COINS & BADGES"}, format="json").json()[
        "category"
    ] == "Coins & Badges"
    assert api.post("/things/", {"name": "X", "category": "coins-badges"}, format="json").json()[
        "category"
    ] == "Coins & Badges"


def test_ancestors_become_remix_links(api, user, other_user):
    published = ThingFactory(creator=other_user)
    own_draft = ThingFactory(creator=user, is_published=False)
    ancestors = [published.pk, own_draft.pk, published.pk]
    response = api.post("/things/", {"name": "Remix", "ancestors": ancestors}, format="json")
    assert response.status_code == 200
    derivative = Thing.objects.get(pk=response.json()["id"])
    assert set(derivative.ancestors.all()) == {published, own_draft}
    assert Remix.objects.count() == 2


def test_a_json_body_labelled_as_a_form_is_read(api):
    response = api.generic(
        "POST",
        "/things",
        '{"name": "Labelled", "tags": ["a"]}',
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert response.json()["tag_names"] == ["a"]


def test_anonymous_is_401(anon_client):
    assert_unauthorized(anon_client.post("/things/", BODY, format="json"))
    assert not Thing.objects.exists()


@pytest.mark.parametrize(
    "change, field",
    [
        ({"name": None}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"name": 42}, "name"),
        ({"license": "cc-nc"}, "license"),
        ({"license": "cc-by"}, "license"),
        ({"category": "Not A Category"}, "category"),
        ({"category": 999999}, "category"),  # an integer is a category's id (the live PATCH): no such one
        ({"category": 7.5}, "category"),
        ({"description": ["a"]}, "description"),
        ({"is_wip": "maybe"}, "is_wip"),
        ({"tags": "a, b"}, "tags"),
        ({"tags": ["ok", 3]}, "tags"),
        ({"tags": ["ok", "!!!"]}, "tags"),
        ({"tags": [f"t{i}" for i in range(51)]}, "tags"),
        ({"tags": ["x" * 101]}, "tags"),
        ({"ancestors": "1"}, "ancestors"),
        ({"ancestors": ["abc"]}, "ancestors"),
        ({"ancestors": [999999]}, "ancestors"),
    ],
)
def test_bad_input_is_400_with_field_errors(api, change, field):
    body = assert_error(api.post("/things/", {**BODY, **change}, format="json"), 400, "VALIDATION_FAILED")
    assert [key.split(".")[0] for key in body["errors"]] == [field]
    assert not Thing.objects.exists()


def test_a_missing_name_is_400(api):
    body = assert_error(api.post("/things/", {"license": "cc"}, format="json"), 400, "VALIDATION_FAILED")
    assert set(body["errors"]) == {"name"}


def test_someone_elses_draft_is_not_a_valid_ancestor(api, other_user):
    draft = ThingFactory(creator=other_user, is_published=False)
    body = assert_error(api.post("/things/", {"name": "X", "ancestors": [draft.pk]}, format="json"), 400)
    assert body["errors"]["ancestors"] == [f"No Thing with id {draft.pk} that you can see."]


def test_every_reference_error_is_reported_at_once(api):
    bad = {"name": "X", "category": "Nope", "tags": [""], "ancestors": [999999]}
    body = assert_error(api.post("/things/", bad, format="json"), 400)
    assert set(body["errors"]) == {"category", "tags", "ancestors"}


def test_malformed_json_is_400(api):
    response = api.generic("POST", "/things/", '{"name": ', content_type="application/json")
    assert_error(response, 400, "MALFORMED_JSON")


def test_get_is_not_an_endpoint(api):
    assert api.get("/things/").status_code == 405


def test_an_ancestor_id_beyond_the_database_range_is_a_400_not_a_500(api):
    # Found by schemathesis: the number reached the database driver, which cannot bind it.
    response = api.post("/things/", {"name": "Remix", "ancestors": [10**32]}, format="json")
    assert response.status_code == 400
    assert "ancestors" in str(response.json()["errors"])
