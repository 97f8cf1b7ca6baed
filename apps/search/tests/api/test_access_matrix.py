"""The access matrix of the search endpoints (spec §4.1 user search, §4.7), declared once per endpoint
(tests.support.api.Access): every search needs a token (401), and a user's search names a user that
exists (404)."""
import pytest

from tests.support.api import MISSING, Access, access_cases
from apps.search.tests.helpers import indexed_thing

pytestmark = pytest.mark.django_db

SEARCHES = [
    Access("GET", "/search/", stranger=None, missing=None),
    Access("GET", "/search/bracket/", stranger=None, missing=None),
    Access("GET", "/search/gear/autocomplete", stranger=None, missing=None),
    Access("GET", "/search/gear/library", stranger=None, missing=None),
    Access("GET", "/search//library", stranger=None, missing=None),
    Access("GET", "/search/gear/tag", stranger=None, missing=None),
    Access("GET", "/users/{username}/search/bracket", stranger=None, error_type={MISSING: "NOT_FOUND"}),
]


@pytest.mark.parametrize("endpoint, caller", access_cases(SEARCHES))
def test_searching_needs_a_token(access, endpoint, caller, user):
    indexed_thing(name="Bracket", creator=user)
    access(endpoint, caller, username=user.username)
