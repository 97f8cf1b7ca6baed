import pytest
from django.contrib.admin import helpers
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.orders.models import Order
from apps.orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db
ORDERS = "/admin/orders/order/"
S = Order.Status


@pytest.fixture
def admin_browser(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def act(admin_browser, action, *orders):
    data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [o.pk for o in orders]}
    return admin_browser.post(ORDERS, data)


def test_the_changelist_searches_and_filters(admin_browser, buyer):
    order = OrderFactory(buyer=buyer, status=S.SHIPPED)
    OrderFactory()
    response = admin_browser.get(ORDERS, {"q": buyer.username, "status__exact": "shipped"})
    assert list(response.context["cl"].result_list) == [order]


def test_the_change_page_is_read_only(admin_browser):
    order = OrderFactory()
    response = admin_browser.get(f"{ORDERS}{order.pk}/change/")
    assert response.status_code == 200
    assert "amount" not in response.context["adminform"].form.fields
    assert admin_browser.get(f"{ORDERS}add/").status_code == 403


def test_grant_refund_refunds_through_the_service_and_emits_order_refunded(admin_browser, events):
    order = OrderFactory(status=S.REFUND_REQUESTED)
    assert act(admin_browser, "grant_refund", order).status_code == 302
    order.refresh_from_db()
    assert (order.status, order.refund_reference) == (S.REFUNDED, f"test_re_{order.pk}")
    assert [e.event for e in events] == ["order_refunded"]


def test_grant_refund_reports_orders_it_cannot_refund(admin_browser, events):
    order = OrderFactory(status=S.PAID)
    response = act(admin_browser, "grant_refund", order)
    assert response.status_code == 302
    order.refresh_from_db()
    assert order.status == S.PAID and events == []


def test_mark_shipped_and_cancel(admin_browser):
    to_ship, to_cancel = OrderFactory.create_batch(2)
    act(admin_browser, "mark_shipped", to_ship)
    act(admin_browser, "cancel_orders", to_cancel)
    to_ship.refresh_from_db()
    to_cancel.refresh_from_db()
    assert (to_ship.status, to_ship.is_shipped) == (S.SHIPPED, True)
    assert (to_cancel.status, to_cancel.refund_reference) == (S.CANCELLED, f"test_re_{to_cancel.pk}")


def test_refuse_refund_puts_the_order_back(admin_browser):
    order = OrderFactory(status=S.REFUND_REQUESTED, is_shipped=True)
    act(admin_browser, "refuse_refund", order)
    order.refresh_from_db()
    assert order.status == S.SHIPPED
