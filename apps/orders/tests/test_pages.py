"""The checkout pages the SDK's address and payment dialogs load, and the buyer's orders page."""
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.orders.models import Order
from apps.orders.tests.factories import OrderFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db
S = Order.Status
ADDRESS = {
    "name": "Ada Lovelace",
    "street": "1 Main St",
    "city": "Springfield",
    "postal_code": "12345",
    "country": "us",
}
PAY = {**ADDRESS, "step": "pay", "nonce": "n1"}
CHARGES = json.dumps([{"name": "Item", "amount": "15.00"}, {"name": "Shipping", "amount": 4.99}])


@pytest.fixture
def browser(buyer):
    client = Client()
    client.force_login(buyer)
    return client


@pytest.fixture
def thing(db):
    return ThingFactory()


def checkout_url(thing, app, amount="19.99", charges=CHARGES) -> str:
    from urllib.parse import urlencode

    return "/orders/checkout?" + urlencode(
        {"thing_id": thing.pk, "client_id": app.client_id, "amount": amount, "charges": charges}
    )


def dialog_result(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="dialog-result" type="application/json">') + len(
        '<script id="dialog-result" type="application/json">'
    )
    return json.loads(html[start:html.index("</script>", start)])


def test_checkout_asks_for_the_address_then_confirms_then_pays(browser, thing, app, authorized, events):
    url = checkout_url(thing, app)
    step1 = browser.get(url)
    assert step1.status_code == 200 and step1.context["step"] == "address"
    assert thing.name in step1.content.decode() and app.name in step1.content.decode()
    step2 = browser.post(url, {**ADDRESS, "step": "address"})
    assert step2.status_code == 200 and step2.context["step"] == "confirm"
    assert not Order.objects.exists()
    paid = browser.post(url, {**ADDRESS, "step": "pay", "nonce": step2.context["nonce"]})
    assert paid.status_code == 200
    order = Order.objects.get()
    assert dialog_result(paid) == {"status": "ok", "order_id": order.pk}
    assert (order.status, order.amount, order.thing, order.application) == (S.PAID, order.amount, thing, app)
    assert str(order.amount) == "19.99"
    assert order.validated_shipping_address.endswith("\nUS")
    assert [e.event for e in events] == ["order_created"]


def test_only_the_sites_own_pages_may_frame_the_checkout(browser, thing, app, authorized):
    assert browser.get(checkout_url(thing, app))["X-Frame-Options"] == "SAMEORIGIN"


def test_checkout_without_charges_charges_the_amount_as_one_item(browser, thing, app, authorized):
    browser.post(checkout_url(thing, app, amount="5.00", charges=""), PAY)
    assert Order.objects.get().charges == [{"name": "Item", "amount": "5.00"}]


def test_checkout_needs_a_login(thing, app):
    response = Client().get(checkout_url(thing, app))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


@pytest.mark.parametrize(
    "field,value",
    [("postal_code", "!"), ("country", "USA"), ("country", "1x"), ("name", ""), ("city", "")],
)
def test_checkout_rejects_a_bad_address(browser, thing, app, authorized, field, value):
    response = browser.post(checkout_url(thing, app), {**ADDRESS, field: value, "step": "pay", "nonce": "n1"})
    assert response.status_code == 400
    assert response.context["step"] == "address" and field in response.context["form"].errors
    assert not Order.objects.exists()


def test_checkout_rejects_an_amount_that_is_not_the_sum_of_the_charges(browser, thing, app, authorized):
    response = browser.get(checkout_url(thing, app, amount="25.00"))
    assert response.status_code == 400
    assert "The charges must add up to the amount." in response.content.decode()
    assert browser.post(checkout_url(thing, app, amount="25.00"), PAY).status_code == 400
    assert not Order.objects.exists()


@pytest.mark.parametrize(
    "amount,charges", [("0", ""), ("-3", ""), ("10000.01", ""), ("abc", ""), ("1", "[1]"), ("1", "{")]
)
def test_checkout_rejects_bad_amounts(browser, thing, app, authorized, amount, charges):
    assert browser.get(checkout_url(thing, app, amount=amount, charges=charges)).status_code == 400


def test_checkout_refuses_an_unpublished_or_missing_thing_and_an_unknown_app(browser, app, authorized):
    draft = ThingFactory(is_published=False)
    assert browser.get(checkout_url(draft, app)).status_code == 404  # someone else's draft
    own_draft = ThingFactory(is_published=False, creator=authorized.user)
    assert browser.get(checkout_url(own_draft, app)).status_code == 400
    thing = ThingFactory()
    response = browser.get(checkout_url(thing, app).replace(app.client_id, "nope"))
    assert response.status_code == 404


def test_checkout_refuses_an_app_the_buyer_has_not_authorized(browser, thing, app):
    response = browser.get(checkout_url(thing, app))
    assert response.status_code == 400 and "Authorize" in response.content.decode()


@pytest.mark.usefixtures("authorized", "declining_backend")
def test_a_declined_payment_shows_the_reason_and_cancels_the_order(browser, thing, app):
    response = browser.post(checkout_url(thing, app), {**ADDRESS, "step": "pay", "nonce": "n1"})
    assert response.status_code == 400
    assert "card declined" in response.context["error"]
    assert Order.objects.get().status == S.CANCELLED


def test_a_second_submission_of_the_same_confirm_page_does_not_charge_again(browser, thing, app, authorized):
    url = checkout_url(thing, app)
    assert browser.post(url, {**ADDRESS, "step": "pay", "nonce": "n1"}).status_code == 200
    again = browser.post(url, {**ADDRESS, "step": "pay", "nonce": "n1"})
    assert again.status_code == 409 and Order.objects.count() == 1
    assert browser.post(url, {**ADDRESS, "step": "pay"}).status_code == 409  # no nonce: never pays
    assert Order.objects.count() == 1


def test_the_cancel_link_gives_a_cancelled_result(browser):
    assert dialog_result(browser.get("/orders/checkout/cancel")) == {"status": "cancelled"}


# --- /account/orders -------------------------------------------------------------------------------


def test_the_orders_page_lists_only_the_buyers_orders_with_refund_forms_where_allowed(browser, buyer, app):
    recent = OrderFactory(buyer=buyer, application=app)
    old = OrderFactory(buyer=buyer, application=app, paid_at=timezone.now() - timedelta(days=31))
    OrderFactory(application=app)  # someone else's
    response = browser.get("/account/orders")
    assert response.status_code == 200
    assert [(r["order"], r["can_refund"]) for r in response.context["rows"]] == [(old, False), (recent, True)]
    assert f"/account/orders/{recent.pk}/refund" in response.content.decode()
    assert f"/account/orders/{old.pk}/refund" not in response.content.decode()


def test_the_orders_page_needs_a_login():
    assert Client().get("/account/orders").status_code == 302


def test_requesting_a_refund_moves_the_order_and_emits_the_event(browser, buyer, app, events):
    order = OrderFactory(buyer=buyer, application=app, paid_at=timezone.now() - timedelta(days=29))
    response = browser.post(f"/account/orders/{order.pk}/refund", {"reason": "It broke"})
    assert response.status_code == 302
    order.refresh_from_db()
    assert (order.status, order.refund_reason) == (S.REFUND_REQUESTED, "It broke")
    assert [e.event for e in events] == ["refund_requested"]


def test_a_refund_request_after_31_days_is_refused_with_a_message(browser, buyer, app, events):
    order = OrderFactory(buyer=buyer, application=app, paid_at=timezone.now() - timedelta(days=31))
    response = browser.post(f"/account/orders/{order.pk}/refund", {"reason": "Late"}, follow=True)
    assert "30 days" in response.content.decode()
    order.refresh_from_db()
    assert order.status == S.PAID and events == []


def test_a_refund_request_needs_csrf(buyer, app):
    order = OrderFactory(buyer=buyer, application=app)
    client = Client(enforce_csrf_checks=True)
    client.force_login(buyer)
    assert client.post(f"/account/orders/{order.pk}/refund", {"reason": "x"}).status_code == 403


def test_someone_elses_order_cannot_be_refunded(browser, app):
    order = OrderFactory(application=app)
    assert browser.post(f"/account/orders/{order.pk}/refund", {"reason": "x"}).status_code == 404
    order.refresh_from_db()
    assert order.status == S.PAID
