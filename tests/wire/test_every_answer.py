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


def _statements(api, paths: list[str], version: str) -> dict[str, tuple[int, int]]:
    """path → (status, statements) of a first read: the caches emptied before it, after one read of the
    same path (what a process does once: statements compiled, the connection's first checks)."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    found = {}
    for path in paths:
        api.get(path, HTTP_THINGYARD_VERSION=version)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            status = api.get(path, HTTP_THINGYARD_VERSION=version).status_code
        found[path] = (status, len(queries))
    return found


def test_what_a_version_adds_costs_statements_per_answer_never_per_item(world, api, user, application):
    """A version's additions (wire.Provide) may read what the base shape does not (a Thing's tag objects,
    a user's counts), once per answer: what `thingiverse` costs beyond `spec` does not grow when every
    list of the world holds a second item. A field computed per item of a list with a statement of its own
    would grow it."""
    values = world.path_values()
    paths = sorted(set(_get_paths(document("spec"), values)) & set(_get_paths(document("thingiverse"), values)))
    before = {version: _statements(api, paths, version) for version in VERSIONS}
    world_build(owner=user, app=application)  # a second of everything the first world has, the same owner's
    after = {version: _statements(api, paths, version) for version in VERSIONS}
    grown, compared = {}, 0
    for path in paths:
        if {before[v][path][0] for v in VERSIONS} | {after[v][path][0] for v in VERSIONS} != {200}:
            continue
        compared += 1
        extra_before = before["thingiverse"][path][1] - before["spec"][path][1]
        extra_after = after["thingiverse"][path][1] - after["spec"][path][1]
        if extra_after > extra_before:
            grown[path] = (extra_before, extra_after)
    assert not grown, grown
    assert compared >= 0.7 * len(paths), (compared, len(paths))
