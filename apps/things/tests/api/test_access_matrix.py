"""The access matrix of every endpoint on one Thing (spec §4.2, §7), declared once per endpoint.

Each case calls the endpoint on a Thing of `user` (the `api` client's user) as a caller that must be
refused (tests.support.api.Access): anonymous 401, another user 403, a missing id 404. A refused call
answers docs/decisions.md's error body and changes no row.
"""
import pytest

from tests.support.api import MISSING, STRANGER, Access, access_cases
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db

# A draft is the Thing matrix itself: only its creator sees it (spec §4.2, §7: 401 / 403 / 404).
ON_A_DRAFT = [
    Access("GET", "/things/{id}/", error_type={STRANGER: "FORBIDDEN", MISSING: "NOT_FOUND"}),
    Access("GET", "/things/{id}/likes"),
    Access("POST", "/things/{id}/likes"),
    Access("DELETE", "/things/{id}/likes"),
    Access("POST", "/things/{id}/toggle-watch"),
    Access("GET", "/things/{id}/tags"),
    Access("GET", "/things/{id}/categories"),
    Access("GET", "/things/{id}/ancestors"),
    Access("GET", "/things/{id}/derivatives"),
    Access("GET", "/things/{id}/prints", error_type={MISSING: "NOT_FOUND"}),
    Access("GET", "/things/{id}/package-url", error_type={MISSING: "NOT_FOUND"}),
    Access("POST", "/things/{id}/publish"),
    Access("PATCH", "/things/{id}/", body={"name": "Mine"}),
]
# A published Thing: reads are everyone's with a token; writes stay its creator's, and another user's
# PATCH is a 403 before its body is validated.
ON_A_PUBLISHED_THING = [
    Access("GET", "/things/{id}/", stranger=None),
    Access("GET", "/things/{id}/hack-the-pandemic-thing", stranger=None),
    Access("GET", "/things/{id}/likes", stranger=None, missing=None),
    Access("POST", "/things/{id}/likes", stranger=None, missing=None),
    Access("DELETE", "/things/{id}/likes", stranger=None, missing=None),
    Access("PATCH", "/things/{id}/", body={"name": ""}),
    Access("DELETE", "/things/{id}/"),
    Access("POST", "/things/{id}/publish"),
]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_DRAFT))
def test_a_draft_is_its_creators_alone(access, endpoint, caller, user):
    draft = ThingFactory(creator=user, is_published=False, tags=["secret"], category=category("art"))
    access(endpoint, caller, draft)


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_PUBLISHED_THING))
def test_a_published_thing_needs_a_token_and_stays_its_creators(access, endpoint, caller, user):
    access(endpoint, caller, ThingFactory(creator=user))
