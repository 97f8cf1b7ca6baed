"""The access matrix of the copies (makes) endpoints (spec §4.4, the copies rows of §4.2 and §4.1),
declared once per endpoint (tests.support.api.Access): anonymous 401, another user 403 where the copy's
creator alone may act, a missing id 404. A refused call answers docs/decisions.md's error body and changes
no row."""
import pytest

from tests.support.api import STRANGER, MISSING, Access, access_cases
from apps.makes.tests.factories import MakeFactory, make_image
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

ON_A_COPY = [
    Access("GET", "/copies/{id}/", stranger=None),
    Access("PATCH", "/copies/{id}/", body={"description": "mine"}, error_type={STRANGER: "FORBIDDEN"}),
    Access("DELETE", "/copies/{id}/"),
    Access("GET", "/copies/{id}/images", stranger=None),
    Access("POST", "/copies/{id}/images", body={"filename": "a.png"}),
    Access("PATCH", "/copies/{id}/images/{image_id}", body={"rank": 1}, missing_param="image_id"),
    Access("DELETE", "/copies/{id}/images/{image_id}", missing_param="image_id"),
    Access("POST", "/copies/{id}/likes", stranger=None),
    Access("DELETE", "/copies/{id}/likes", stranger=None),
]
# A Thing's copies follow the Thing's matrix: a draft is its creator's alone.
ON_A_DRAFT = [
    Access("GET", "/things/{id}/copies", error_type={STRANGER: "FORBIDDEN", MISSING: "NOT_FOUND"}),
    Access("POST", "/things/{id}/copies", body={"filename": "a.png"}),
]
LISTS = [
    Access("GET", "/copies/", stranger=None, missing=None),
    Access("GET", "/users/{username}/copies", stranger=None, missing=None),
]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_COPY))
def test_a_copy_is_changed_by_its_creator_alone(access, endpoint, caller, user):
    make = MakeFactory(creator=user)
    access(endpoint, caller, make, image_id=make_image(make).pk)


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_DRAFT))
def test_the_copies_of_a_draft_are_its_creators_alone(access, endpoint, caller, user):
    access(endpoint, caller, ThingFactory(creator=user, is_published=False))


@pytest.mark.parametrize("endpoint, caller", access_cases(LISTS))
def test_the_lists_need_a_token(access, endpoint, caller, user):
    access(endpoint, caller, username=user.username)
