"""GET /things/{id}/prints and /things/{id}/package-url (spec §4.2), before makes and files exist."""
import pytest

from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db


def test_prints_is_an_empty_paginated_array_for_now(api, other_user):
    response = api.get(f"/things/{ThingFactory(creator=other_user).pk}/prints")
    assert response.status_code == 200
    assert response.json() == []
    assert 'rel="last"' in response["Link"]


def test_package_url_is_404_while_the_thing_has_no_files(api, other_user):
    thing = ThingFactory(creator=other_user)
    body = assert_error(api.get(f"/things/{thing.pk}/package-url"), 404, "NO_FILES")
    assert body["errors"] == ["This Thing has no files to package yet."]
