import datetime as dt
from decimal import Decimal

import pytest

from apps.orders.models import Order
from apps.orders.tests.factories import OrderFactory
from apps.orders.wire import order_wire_dict

pytestmark = pytest.mark.django_db


def test_every_value_is_a_string_in_the_spec_format():
    order = OrderFactory(note="Gift wrap", is_shipped=True, status=Order.Status.SHIPPED)
    Order.objects.filter(pk=order.pk).update(
        add_date=dt.datetime(2026, 11, 20, 12, 0, 0, tzinfo=dt.timezone.utc),
        modified_date=dt.datetime(2026, 11, 21, 8, 30, 5, 999, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    )
    order.refresh_from_db()
    assert order_wire_dict(order) == {
        "id": str(order.pk),
        "thing_id": str(order.thing_id),
        "amount": "19.99",
        "add_date": "2026-11-20 12:00:00",
        "modified_date": "2026-11-21 06:30:05",  # UTC
        "charges": [{"name": "Item", "amount": "15.00"}, {"name": "Shipping", "amount": "4.99"}],
        "fees": "0.99",
        "validated_shipping_address": "Ada Lovelace\n1 Main St\n12345 Springfield\nUS",
        "is_shipped": "true",
        "status": "shipped",
        "note": "Gift wrap",
    }


def test_whole_amounts_keep_two_decimals_and_unshipped_is_false():
    order = OrderFactory(amount=Decimal("20"), fees=Decimal("0"), charges=[{"name": "Item", "amount": "20"}])
    wire = order_wire_dict(order)
    assert (wire["amount"], wire["fees"], wire["charges"][0]["amount"]) == ("20.00", "0.00", "20.00")
    assert wire["is_shipped"] == "false"
