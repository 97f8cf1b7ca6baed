"""What `make fuzz` found, kept as plain regression tests (each was a 500 or a contract mismatch)."""
import pytest
from drf_spectacular.generators import SchemaGenerator

from apps.things.tests.factories import ThingFactory


@pytest.fixture(scope="module")
def document():
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.mark.parametrize("offset", ["-19:59", "+23:30"])
def test_an_offset_postgresql_cannot_store_is_still_a_valid_timestamp(api, user, offset):
    # Was a 500: PostgreSQL refuses time zone displacements beyond ±15:59 that ISO 8601 allows.
    response = api.get(f"/users/{user.username}/event-count", {"timestamp": f"2026-03-16T04:01:08{offset}"})
    assert response.status_code == 200, response.content
    response = api.get("/search/", {"posted_after": f"2020-01-01T00:00:00{offset}"})
    assert response.status_code in (200, 404)


def test_a_timestamp_before_year_one_in_utc_is_a_400(api, user):
    response = api.get(f"/users/{user.username}/event-count", {"timestamp": "0001-01-01T00:00:00+01:00"})
    assert response.status_code == 400


def test_the_whole_list_still_refuses_pagination_parameters_that_are_not_numbers(api, user):
    response = api.get(f"/users/{user.username}/collections/true", {"page": "abc"})
    assert response.status_code == 400
    assert response.json()["type"] == "VALIDATION_FAILED"


def test_a_number_is_not_a_filename(api, user):
    thing = ThingFactory(creator=user)
    response = api.post(f"/things/{thing.pk}/files", {"filename": 0}, format="json")
    assert response.status_code == 400


def test_is_wip_as_the_sdk_s_number_is_accepted_and_documented(api, document):
    response = api.post("/things/", {"name": "From thing_save", "is_wip": 1}, format="json")
    assert response.status_code == 201 and response.json()["is_wip"] is True
    accepted = document["components"]["schemas"]["ThingCreateInputRequest"]["properties"]["is_wip"]["oneOf"]
    assert {"type": "integer", "enum": [0, 1]} in accepted


def test_a_user_s_e_mail_is_optional_in_the_document(document):
    assert "email" not in document["components"]["schemas"]["User"].get("required", [])


def test_an_autocomplete_id_is_a_thing_id_or_a_tag_name(document):
    id_schema = document["components"]["schemas"]["AutocompleteItem"]["properties"]["id"]
    assert {"type": "integer"} in id_schema["oneOf"] and {"type": "string"} in id_schema["oneOf"]


def test_search_results_are_documented_per_registered_type(api, user, document):
    ThingFactory(creator=user, name="Zebra stand")
    response = api.get("/search/zebra/", {"type": "users"})
    assert response.status_code in (200, 404)
    items = document["components"]["schemas"]["SearchResult"]["oneOf"]
    assert {"$ref": "#/components/schemas/User"} in items
