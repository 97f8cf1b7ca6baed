"""POST /things/{id}/publish (spec §3: unpublished → published, or 400 {errors: [reasons]})."""
import pytest

from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error
from apps.things.tests.helpers import THING_KEYS

pytestmark = pytest.mark.django_db


def test_it_publishes_and_returns_the_published_thing(api, user):
    draft = ThingFactory(creator=user, is_published=False, published_at=None)
    response = api.post(f"/things/{draft.pk}/publish")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == THING_KEYS
    assert body["is_published"] is True
    draft.refresh_from_db()
    assert draft.is_published and draft.published_at is not None


def test_publishing_again_is_a_no_op(api, user):
    thing = ThingFactory(creator=user)
    published_at = thing.published_at
    response = api.post(f"/things/{thing.pk}/publish")
    assert response.status_code == 200
    assert response.json()["is_published"] is True
    thing.refresh_from_db()
    assert thing.published_at == published_at


def test_an_unpublishable_thing_is_400_with_the_reasons(api, user):
    draft = ThingFactory(creator=user, is_published=False, published_at=None, description="  ")
    response = api.post(f"/things/{draft.pk}/publish")
    body = assert_error(response, 400, "NOT_PUBLISHABLE")
    assert body == {
        "error": "This Thing cannot be published yet.",
        "code": 400,
        "type": "NOT_PUBLISHABLE",
        "errors": ["Description cannot be blank."],
    }
    assert Thing.objects.get(pk=draft.pk).is_published is False


def test_a_thing_created_without_description_is_not_publishable_until_patched(api):
    thing_id = api.post("/things/", {"name": "Draft"}, format="json").json()["id"]
    assert_error(api.post(f"/things/{thing_id}/publish"), 400, "NOT_PUBLISHABLE")
    api.patch(f"/things/{thing_id}/", {"description": "Now described."}, format="json")
    assert api.post(f"/things/{thing_id}/publish").json()["is_published"] is True
