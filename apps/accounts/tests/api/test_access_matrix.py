"""The access matrix of the user endpoints (spec §4.1), declared once per endpoint
(tests.support.api.Access): anonymous 401, another user 403 where only the user themself may act, an
unknown user name 404. A refused call answers docs/decisions.md's error body and changes no row."""
import pytest

from tests.support.api import MISSING, STRANGER, Access, access_cases

pytestmark = pytest.mark.django_db

ON_A_USER = [
    Access("GET", "/users/{username}/", stranger=None, error_type={MISSING: "NOT_FOUND"}),
    Access("PATCH", "/users/{username}/", body={"bio": "hacked"},
           error_type={STRANGER: "FORBIDDEN"}),
    Access("DELETE", "/users/{username}/"),
    Access("POST", "/users/{username}/verify-account"),
    Access("GET", "/users/{username}/event-count"),
    Access("POST", "/users/{username}/followers", stranger=None),
    Access("DELETE", "/users/{username}/followers", stranger=None),
    Access("GET", "/users/{username}/followers", stranger=None, error_type={MISSING: "NOT_FOUND"}),
    Access("GET", "/users/{username}/following", stranger=None, error_type={MISSING: "NOT_FOUND"}),
]
LISTS = [Access("GET", "/users/unread-message-count", stranger=None, missing=None)]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_USER))
def test_a_user_is_changed_by_themself_alone(access, endpoint, caller, user):
    access(endpoint, caller, user, username=user.username)


@pytest.mark.parametrize("endpoint, caller", access_cases(LISTS))
def test_the_callers_own_counts_need_a_token(access, endpoint, caller):
    access(endpoint, caller)
