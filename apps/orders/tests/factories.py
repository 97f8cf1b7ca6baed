from decimal import Decimal

import factory
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import ApplicationFactory
from apps.orders.models import Order
from apps.things.tests.factories import ThingFactory


class OrderFactory(factory.django.DjangoModelFactory):
    """A paid order (what a finished checkout leaves)."""

    class Meta:
        model = Order

    buyer = factory.SubFactory(UserFactory)
    thing = factory.SubFactory(ThingFactory)
    application = factory.SubFactory(ApplicationFactory)
    amount = Decimal("19.99")
    charges = factory.LazyFunction(
        lambda: [{"name": "Item", "amount": "15.00"}, {"name": "Shipping", "amount": "4.99"}]
    )
    fees = Decimal("0.99")
    validated_shipping_address = "Ada Lovelace\n1 Main St\n12345 Springfield\nUS"
    status = Order.Status.PAID
    payment_backend = "test"
    payment_reference = factory.Sequence(lambda n: f"test_ch_{n}")
    paid_at = factory.LazyFunction(timezone.now)
