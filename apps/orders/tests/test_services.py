from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from apps.core.domain.exceptions import RuleViolation, ValidationFailed
from apps.oauth.models import AppAuthorization
from apps.orders import services
from apps.orders.models import Order
from apps.orders.tests.factories import OrderFactory
from apps.orders.wire import order_wire_dict
from apps.things.tests.factories import ThingFactory
from apps.webhooks import services as webhook_services

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("authorized")]
S = Order.Status
ADDRESS = {
    "name": "Ada Lovelace",
    "street": "1 Main St",
    "city": "Springfield",
    "postal_code": "12345",
    "country": "US",
}
CHARGES = [{"name": "Item", "amount": Decimal("15.00")}, {"name": "Shipping", "amount": Decimal("4.99")}]


def place(buyer, app, **overrides):
    kwargs = dict(
        buyer=buyer, thing=ThingFactory(), application=app, amount=Decimal("19.99"), charges=CHARGES,
        address=ADDRESS,
    )
    kwargs.update(overrides)
    return services.order_place(**kwargs)


def test_placing_an_order_charges_it_and_emits_order_created_with_the_paid_order(buyer, app, events):
    order = place(buyer, app)
    order.refresh_from_db()
    assert (order.status, order.payment_backend) == (S.PAID, "test")
    assert order.payment_reference == f"test_ch_{order.pk}"
    assert order.paid_at is not None
    assert order.charges == [{"name": "Item", "amount": "15.00"}, {"name": "Shipping", "amount": "4.99"}]
    assert order.validated_shipping_address == "Ada Lovelace\n1 Main St\n12345 Springfield\nUS"
    [event] = events
    assert (event.application_id, event.event, event.status_in_db, event.in_transaction) == (
        app.pk, "order_created", "paid", True
    )
    assert event.payload == {"order": order_wire_dict(order)}


def test_a_declined_charge_cancels_the_order_and_emits_nothing(buyer, app, declining_backend, events):
    with pytest.raises(RuleViolation, match="declined: card declined"):
        place(buyer, app)
    assert Order.objects.get().status == S.CANCELLED
    assert events == []


def test_an_unknown_backend_failure_leaves_the_order_pending(buyer, app, broken_backend, events):
    with pytest.raises(RuleViolation) as exc:
        place(buyer, app)
    assert exc.value.error_type == "PAYMENT_ERROR"
    assert Order.objects.get().status == S.PENDING and events == []


def test_placing_refuses_an_amount_that_is_not_the_sum_of_the_charges(buyer, app):
    with pytest.raises(ValidationFailed):
        place(buyer, app, amount=Decimal("25.00"))
    assert not Order.objects.exists()


def test_placing_refuses_an_unpublished_thing_and_an_unauthorized_app(buyer, app):
    with pytest.raises(RuleViolation, match="not published"):
        place(buyer, app, thing=ThingFactory(is_published=False))
    AppAuthorization.objects.filter(user=buyer).delete()
    with pytest.raises(RuleViolation, match="Authorize"):
        place(buyer, app)


def test_the_order_change_rolls_back_when_the_event_cannot_be_recorded(buyer, app, monkeypatch):
    """The event is written in the order's transaction: no event, no status change."""
    order = OrderFactory(buyer=buyer, application=app, status=S.REFUND_REQUESTED)

    def fail(**kwargs):
        raise RuntimeError("outbox down")

    monkeypatch.setattr(webhook_services, "webhook_event_record", fail)
    with pytest.raises(RuntimeError):
        services.order_refund_grant(order=order)
    order.refresh_from_db()
    assert order.status == S.REFUND_REQUESTED


def test_a_rolled_back_change_leaves_no_event(buyer, app):
    from apps.webhooks.models import Delivery

    app.webhook_url = "https://hooks.example.com/thingyard"
    app.save(update_fields=["webhook_url"])
    order = OrderFactory(buyer=buyer, application=app)
    with pytest.raises(RuntimeError), transaction.atomic():
        services.order_refund_request(order=order, buyer=buyer, reason="Broken")
        assert Delivery.objects.filter(event="refund_requested").exists()
        raise RuntimeError("the caller's transaction fails")
    order.refresh_from_db()
    assert order.status == S.PAID
    assert not Delivery.objects.exists()


def test_the_outbox_row_carries_the_order_in_the_wire_shape(buyer, app):
    """Unpatched: the webhooks app's real outbox write, in the order's transaction."""
    from apps.webhooks.models import Delivery

    app.webhook_url = "https://hooks.example.com/thingyard"
    app.save(update_fields=["webhook_url"])
    order = place(buyer, app)
    delivery = Delivery.objects.get()
    assert (delivery.application_id, delivery.event) == (app.pk, "order_created")
    assert delivery.payload == {"event": "order_created", "order": order_wire_dict(order)}


def test_the_buyer_requests_a_refund_29_days_after_payment(buyer, app, events):
    shipped = OrderFactory(buyer=buyer, application=app, status=S.SHIPPED, is_shipped=True,
                           paid_at=timezone.now() - timedelta(days=29))
    order = services.order_refund_request(order=shipped, buyer=buyer, reason="It arrived broken")
    assert (order.status, order.refund_reason) == (S.REFUND_REQUESTED, "It arrived broken")
    assert order.refund_requested_at is not None
    assert [(e.event, e.status_in_db, e.in_transaction) for e in events] == [
        ("refund_requested", "refund_requested", True)
    ]


def test_a_refund_request_31_days_after_payment_is_refused(buyer, app, events):
    order = OrderFactory(buyer=buyer, application=app, paid_at=timezone.now() - timedelta(days=31))
    with pytest.raises(RuleViolation, match="30 days"):
        services.order_refund_request(order=order, buyer=buyer, reason="Changed my mind")
    order.refresh_from_db()
    assert order.status == S.PAID and events == []


def test_asking_for_a_refund_twice_is_a_no_op(buyer, app, events):
    order = OrderFactory(buyer=buyer, application=app)
    services.order_refund_request(order=order, buyer=buyer, reason="Broken")
    services.order_refund_request(order=order, buyer=buyer, reason="Still broken")
    order.refresh_from_db()
    assert order.refund_reason == "Broken" and len(events) == 1


def test_only_the_buyer_can_ask_for_a_refund(buyer, app, seller):
    order = OrderFactory(buyer=buyer, application=app)
    with pytest.raises(RuleViolation):
        services.order_refund_request(order=order, buyer=seller, reason="Mine now")


def test_refusing_a_refund_goes_back_to_shipped_or_paid(buyer, app, events):
    shipped = OrderFactory(buyer=buyer, application=app, status=S.REFUND_REQUESTED, is_shipped=True)
    unshipped = OrderFactory(buyer=buyer, application=app, status=S.REFUND_REQUESTED)
    assert services.order_refund_refuse(order=shipped).status == S.SHIPPED
    assert services.order_refund_refuse(order=unshipped).status == S.PAID
    assert events == []
