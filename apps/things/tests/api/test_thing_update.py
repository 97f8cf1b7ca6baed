"""PATCH /things/{id}/ (spec §4.2, §3: is_wip): owner only, all fields optional, tags replace."""
import pytest

from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from tests.support.api import assert_error
from apps.things.tests.helpers import THING_KEYS

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, tags=["old", "keep"], category=category("art"))


def test_it_changes_the_given_fields_only(api, thing):
    response = api.patch(
        f"/things/{thing.pk}/",
        {"name": "Renamed", "license": "bsd", "is_wip": True, "instructions": "Brim."},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == THING_KEYS
    assert (body["name"], body["license"], body["is_wip"], body["instructions"]) == (
        "Renamed", "BSD License", True, "Brim."
    )
    assert body["description"] == "A sturdy bracket for shelves."
    assert body["category"] == "Art"
    assert body["tag_names"] == ["old", "keep"]
    thing.refresh_from_db()
    assert (thing.name, thing.license, thing.is_wip) == ("Renamed", "bsd", True)


def test_tags_replace_every_tag(api, thing):
    body = api.patch(f"/things/{thing.pk}", {"tags": ["keep", "new tag"]}, format="json").json()
    assert body["tag_names"] == ["keep", "new_tag"]
    assert api.patch(f"/things/{thing.pk}", {"tags": []}, format="json").json()["tag_names"] == []


def test_category_is_set_by_full_name_and_cleared_by_null(api, thing):
    response = api.patch(f"/things/{thing.pk}", {"category": "math art"}, format="json")
    assert response.json()["category"] == "Math Art"
    assert api.patch(f"/things/{thing.pk}", {"category": None}, format="json").json()["category"] is None
    thing.refresh_from_db()
    assert thing.category is None


def test_is_wip_can_be_turned_off(api, thing):
    Thing.objects.filter(pk=thing.pk).update(is_wip=True)
    assert api.patch(f"/things/{thing.pk}/", {"is_wip": False}, format="json").json()["is_wip"] is False


def test_is_published_and_unknown_keys_are_ignored(api, user):
    draft = ThingFactory(creator=user, is_published=False)
    response = api.patch(f"/things/{draft.pk}/", {"is_published": True, "colour": "red"}, format="json")
    assert response.status_code == 200
    assert response.json()["is_published"] is False


def test_an_empty_body_changes_nothing(api, thing):
    assert api.patch(f"/things/{thing.pk}/").status_code == 200


@pytest.mark.parametrize(
    "body, field",
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"license": "nope"}, "license"),
        ({"category": "Nope"}, "category"),
        ({"category": 999999}, "category"),
        ({"category": 0}, "category"),
        ({"category": 2**40}, "category"),
        ({"category": True}, "category"),
        ({"category": ["Art"]}, "category"),
        ({"tags": "a"}, "tags"),
        ({"tags": [None]}, "tags"),
        ({"is_wip": "perhaps"}, "is_wip"),
    ],
)
def test_bad_input_is_400_and_changes_nothing(api, thing, body, field):
    response = api.patch(f"/things/{thing.pk}/", body, format="json")
    errors = assert_error(response, 400, "VALIDATION_FAILED")["errors"]
    assert [key.split(".")[0] for key in errors] == [field]
    thing.refresh_from_db()
    assert thing.name.startswith("Parametric bracket")
    assert thing.category.slug == "art"


def test_malformed_json_is_400(api, thing):
    assert_error(api.generic("PATCH", f"/things/{thing.pk}/", "{oops", content_type="application/json"), 400)


def test_category_is_set_by_its_id_too(api, thing):
    """The live service's PATCH takes the category's id (a `thingiverse` Category shows it)."""
    wanted = category("math-art")
    response = api.patch(f"/things/{thing.pk}", {"category": wanted.pk}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["category"] == wanted.name
    created = api.post("/things/", {"name": "By id", "category": wanted.pk}, format="json")
    assert created.status_code == 200 and created.json()["category"] == wanted.name
