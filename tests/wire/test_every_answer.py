"""docs/decisions.md: Wire versions. Every GET of the API, asked in each wire version, answers what that
version's OpenAPI document says (the body against the schema documented for its status), and says which
version it used in `Thingyard-Version`."""
import pytest

from tests.wire.openapi import assert_answer_matches, document
from tests.world import world_build

VERSIONS = ("spec", "thingiverse")


@pytest.fixture
def world(db, user, application, s3):
    return world_build(owner=user, app=application)


def _get_paths(doc: dict, values: dict) -> list[str]:
    return [template.format(**values) for template, item in doc["paths"].items() if "get" in item]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_get_answers_its_versions_document(version, world, api):
    statuses = {}
    for path in _get_paths(document(version), world.path_values()):
        response = api.get(path, HTTP_THINGYARD_VERSION=version)
        assert response["Thingyard-Version"] == version, path
        statuses[path] = response.status_code
        if response.get("Content-Type", "").startswith("application/json"):
            assert_answer_matches(version, "GET", path, response)
    answered = [path for path, status in statuses.items() if status == 200]
    # Nearly every GET answers 200 for the owner of the world's objects (the rest: documented errors).
    assert len(answered) >= 0.8 * len(statuses), {p: s for p, s in statuses.items() if s != 200}


def test_the_two_documents_differ_where_the_table_says(db):
    spec, live = document("spec")["components"]["schemas"], document("thingiverse")["components"]["schemas"]
    assert spec["Thing"]["properties"]["is_published"]["type"] == "boolean"
    assert live["Thing"]["properties"]["is_published"] == {"type": "integer", "enum": [0, 1], "readOnly": True}
    assert live["Thing"]["properties"]["tags"]["type"] == "array"
    assert "files" not in live["Thing"]["properties"] and "type_name" in live["Thing"]["required"]
    assert "oneOf" in spec["ThingSearchAnswer"] and live["ThingSearchAnswer"]["required"] == ["total", "hits"]
    for schemas in (spec, live):  # the additive fields: in both
        assert {"details", "description_html", "instructions_html", "view_count", "download_count"} <= set(
            schemas["Thing"]["properties"])
        assert {"direct_url", "download_count"} <= set(schemas["File"]["properties"])
