"""The access matrix of the orders endpoints (spec §4.9), declared once per endpoint
(tests.support.api.Access): an order belongs to its app, and a user's token sees only that user's
orders there. Anonymous 401; another user's token for the same app, the buyer's own token issued to
another app, and a missing id: 404. A refused call answers docs/decisions.md's error body and changes no row."""
import pytest

from tests.support.api import MISSING, OTHER_APP, STRANGER, Access, access_cases
from apps.orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db

NOT_FOUND = {STRANGER: "NOT_FOUND", MISSING: "NOT_FOUND", OTHER_APP: "NOT_FOUND"}
ON_AN_ORDER = [
    Access("GET", "/orders/{id}/", stranger=404, other_app=404, error_type=NOT_FOUND),
    Access("PATCH", "/orders/{id}/", body={"note": "x"}, stranger=404, other_app=404),
]
LISTS = [Access("GET", "/orders/", stranger=None, missing=None)]


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_AN_ORDER))
def test_an_order_is_its_buyers_through_its_app_alone(access, endpoint, caller, user, application):
    access(endpoint, caller, OrderFactory(buyer=user, application=application))


@pytest.mark.parametrize("endpoint, caller", access_cases(LISTS))
def test_the_list_needs_a_token(access, endpoint, caller):
    access(endpoint, caller)
