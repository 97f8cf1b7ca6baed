"""The access matrix of the collections endpoints (spec §4.5, §4.1's collections lists), declared once per
endpoint (tests.support.api.Access): anonymous 401, another user 403, a missing id 404, and the owner's
own token from another app 403 where §4.5 keeps a collection, or a Thing in it, to the app that made it.
A refused call answers docs/decisions.md's error body and changes no row."""
import pytest

from tests.support.api import Access, access_cases
from apps.thingcollections import services
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

ON_A_COLLECTION = [
    Access("GET", "/collections/{id}/", stranger=None),
    Access("GET", "/collections/{id}/things", stranger=None),
    Access("PATCH", "/collections/{id}/", body={"name": "mine"}, other_app=403),
    Access("DELETE", "/collections/{id}/", other_app=403),
    # Apps may add to any collection the user owns (§4.5), but remove only the Things they added.
    Access("POST", "/collections/{id}/thing/{thing_id}", body={"description": "mine now"}),
    Access("DELETE", "/collections/{id}/thing/{thing_id}", other_app=403),
]
LISTS = [
    Access("GET", "/collections/", stranger=None, missing=None),
    Access("POST", "/collections/", body={"name": "x"}, stranger=None, missing=None),
    Access("GET", "/users/{username}/collections", stranger=None, missing=None),
    Access("GET", "/users/{username}/collections/true", stranger=None, missing=None),
    Access("GET", "/users/{username}/all-collected-things", stranger=None, missing=None),
]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_COLLECTION))
def test_a_collection_is_changed_by_its_creator_through_its_app(access, endpoint, caller, user, application):
    collection = services.collection_create(creator=user, name="Shelf parts", application=application)
    thing = ThingFactory()
    services.collection_add_thing(collection=collection, thing=thing, user=user, application=application)
    access(endpoint, caller, collection, thing_id=thing.pk)


@pytest.mark.parametrize("endpoint, caller", access_cases(LISTS))
def test_the_lists_need_a_token(access, endpoint, caller, user):
    access(endpoint, caller, username=user.username)
