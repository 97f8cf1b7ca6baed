"""A Thing's print_settings (issue 27; DECISIONS.md "Print settings and model formats (round 3)"):
written by POST and PATCH, shown by GET, validated with clear 400s, and a search filter."""
import pytest

from tests.support.api import assert_error
from apps.search.tests.helpers import hit_ids, indexed_thing
from apps.things.models import Thing
from apps.accounts.tests.factories import UserFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

NONE = {"printer": None, "material": None, "layer_height_mm": None, "supports": None, "infill_percent": None,
        "nozzle_mm": None, "notes": None}
PETG = {"printer": "Prusa MK4", "material": "PETG", "layer_height_mm": 0.2, "supports": False,
        "infill_percent": 20, "nozzle_mm": 0.4, "notes": "Brim on the long edge."}


@pytest.fixture
def other_api(client_for):
    return client_for(UserFactory())


def test_post_stores_them_and_get_shows_every_key(api):
    created = api.post("/things/", {"name": "Hook", "print_settings": PETG}, format="json")

    assert created.status_code == 200, created.content
    assert created.json()["print_settings"] == PETG
    thing = Thing.objects.get(pk=created.json()["id"])
    assert thing.print_settings == PETG
    assert api.get(f"/things/{thing.pk}/").json()["print_settings"] == PETG


def test_a_thing_without_print_settings_shows_null_and_unset_keys_show_null(api):
    assert api.post("/things/", {"name": "Plain"}, format="json").json()["print_settings"] is None
    body = api.post("/things/", {"name": "Some", "print_settings": {"material": "PLA"}}, format="json").json()
    assert body["print_settings"] == {**NONE, "material": "PLA"}


def test_patch_merges_keys_clears_null_keys_and_null_clears_all(api, user):
    thing = ThingFactory(creator=user, print_settings={"material": "PLA", "nozzle_mm": 0.4})

    body = api.patch(f"/things/{thing.pk}/", {"print_settings": {"layer_height_mm": 0.28, "nozzle_mm": None}},
                     format="json").json()
    assert body["print_settings"] == {**NONE, "material": "PLA", "layer_height_mm": 0.28}
    thing.refresh_from_db()
    assert thing.print_settings == {"material": "PLA", "layer_height_mm": 0.28}

    body = api.patch(f"/things/{thing.pk}/", {"print_settings": None}, format="json").json()
    assert body["print_settings"] is None
    thing.refresh_from_db()
    assert thing.print_settings is None


def test_the_whole_body_sent_back_round_trips(api, user):
    thing = ThingFactory(creator=user, print_settings={"material": "ASA"})
    body = api.get(f"/things/{thing.pk}/").json()
    body["print_settings"]["supports"] = True

    after = api.patch(f"/things/{thing.pk}/", body, format="json")

    assert after.status_code == 200, after.content
    assert after.json()["print_settings"] == {**NONE, "material": "ASA", "supports": True}


@pytest.mark.parametrize("value, message", [
    ({"layer_height_mm": "0.2"}, "print_settings: layer_height_mm must be a number or null."),
    ({"layer_height_mm": 0}, "print_settings: layer_height_mm must be between 0.01 and 5 (mm)."),
    ({"infill_percent": 150}, "print_settings: infill_percent must be between 0 and 100 (%)."),
    ({"nozzle_mm": True}, "print_settings: nozzle_mm must be a number or null."),
    ({"supports": "yes"}, "print_settings: supports must be true, false or null."),
    ({"supports": 1}, "print_settings: supports must be true, false or null."),
    ({"material": 42}, "print_settings: material must be a string or null."),
    ({"material": "x" * 51}, "print_settings: material must be at most 50 characters."),
    ({"colour": "red"}, "print_settings: unknown key 'colour'; the keys are printer, material, layer_height_mm, "
                        "supports, infill_percent, nozzle_mm, notes."),
    ("PETG", "print_settings: must be an object or null."),
    ([1, 2], "print_settings: must be an object or null."),
])
def test_bad_values_are_400_naming_the_key_and_change_nothing(api, user, value, message):
    thing = ThingFactory(creator=user, print_settings={"material": "PLA"})

    response = api.patch(f"/things/{thing.pk}/", {"print_settings": value}, format="json")

    body = assert_error(response, 400, "VALIDATION_FAILED")
    assert body["errors"] == {"print_settings": [message.removeprefix("print_settings: ")]}
    assert message in response["X-Error"]
    thing.refresh_from_db()
    assert thing.print_settings == {"material": "PLA"}
    assert api.post("/things/", {"name": "New", "print_settings": value}, format="json").status_code == 400


def test_only_the_owner_may_change_them(other_api, user, anon_client):
    thing = ThingFactory(creator=user, is_published=True, print_settings={"material": "PLA"})

    assert other_api.patch(f"/things/{thing.pk}/", {"print_settings": None}, format="json").status_code == 403
    assert anon_client.patch(f"/things/{thing.pk}/", {"print_settings": None}, format="json").status_code == 401
    thing.refresh_from_db()
    assert thing.print_settings == {"material": "PLA"}


@pytest.mark.parametrize("term", ["bracket", ""])
def test_search_filters_by_material_in_any_case_and_follows_changes(api, user, term):
    petg = indexed_thing(name="Shelf bracket", creator=user, is_published=True)
    pla = indexed_thing(name="Wall bracket", creator=user, is_published=True)
    for thing, material in ((petg, "PETG"), (pla, "PLA")):
        api.patch(f"/things/{thing.pk}/", {"print_settings": {"material": material}}, format="json")
    url = f"/search/{term}/" if term else "/search/"

    assert hit_ids(api.get(url, {"type": "things", "material": "petg"})) == [petg.pk]

    api.patch(f"/things/{pla.pk}/", {"print_settings": {"material": "petg"}}, format="json")
    assert sorted(hit_ids(api.get(url, {"type": "things", "material": "PETG"}))) == sorted([petg.pk, pla.pk])

    api.patch(f"/things/{petg.pk}/", {"print_settings": None}, format="json")
    assert hit_ids(api.get(url, {"type": "things", "material": "PETG"})) == [pla.pk]


def test_the_material_filter_is_refused_for_users(api):
    response = api.get("/search/bob/", {"type": "users", "material": "PLA"})

    assert assert_error(response, 400, "VALIDATION_FAILED")["errors"] == {"material": ["Not available for type users."]}
