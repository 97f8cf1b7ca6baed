"""Orders (spec §2 Order, §4.9; docs/decisions.md: Orders): a buyer's purchase of a Thing through an app."""
from decimal import Decimal

from django.conf import settings
from django.db import models


class Order(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending payment"
        PAID = "paid", "Paid"
        SHIPPED = "shipped", "Shipped"
        REFUND_REQUESTED = "refund_requested", "Refund requested"
        REFUNDED = "refunded", "Refunded"
        CANCELLED = "cancelled", "Cancelled"

    buyer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="orders")
    thing = models.ForeignKey("things.Thing", on_delete=models.PROTECT, related_name="orders")
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.PROTECT, related_name="orders"
    )
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3, default="USD")
    # spec §2: an array of charges; each {name, amount} (amount as decimal text in the wire shape).
    charges = models.JSONField(default=list, blank=True)
    fees = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    validated_shipping_address = models.TextField(blank=True)
    is_shipped = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    note = models.TextField(blank=True, max_length=2000)
    payment_backend = models.CharField(max_length=40, blank=True)
    payment_reference = models.CharField(max_length=200, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    refund_requested_at = models.DateTimeField(null=True, blank=True)
    refund_reason = models.TextField(blank=True, max_length=2000)
    # The payment backend's reference for the money sent back (a granted refund, a cancelled paid order).
    refund_reference = models.CharField(max_length=200, blank=True)
    refunded_at = models.DateTimeField(null=True, blank=True)
    add_date = models.DateTimeField(auto_now_add=True)
    modified_date = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-add_date", "-id"]
        indexes = [models.Index(fields=["application", "buyer", "-add_date"], name="orders_app_buyer_idx")]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gte=0), name="orders_amount_not_negative"),
        ]

    def __str__(self) -> str:
        return f"Order {self.pk} ({self.get_status_display()})"
