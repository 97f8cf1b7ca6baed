"""Order output (spec §2, via wire.order_wire_dict) and the PATCH input (docs/decisions.md: Orders)."""
from rest_framework import serializers

from apps.core.pipeline.fields import StrictBooleanField, StrictCharField
from apps.orders import rules
from apps.orders.wire import order_wire_dict


class ChargeSerializer(serializers.Serializer):
    name = serializers.CharField()
    amount = serializers.CharField(help_text="Decimal text, e.g. `15.00`.")


class OrderSerializer(serializers.Serializer):
    """spec §2 Order: every value a string. The fields document the shape; order_wire_dict renders it."""

    id = serializers.CharField()
    thing_id = serializers.CharField()
    amount = serializers.CharField(help_text="Decimal text, e.g. `19.99`.")
    add_date = serializers.CharField(help_text="`YYYY-MM-DD hh:mm:ss`, UTC.")
    modified_date = serializers.CharField(help_text="`YYYY-MM-DD hh:mm:ss`, UTC.")
    charges = ChargeSerializer(many=True)
    fees = serializers.CharField()
    validated_shipping_address = serializers.CharField()
    is_shipped = serializers.ChoiceField(choices=["true", "false"])
    status = serializers.CharField(
        help_text="pending, paid, shipped, refund_requested, refunded or cancelled."
    )
    note = serializers.CharField()

    def to_representation(self, instance):
        return order_wire_dict(instance)


class OrderUpdateInput(serializers.Serializer):
    """PATCH /orders/{id}/: every field optional; unknown keys are ignored."""

    is_shipped = StrictBooleanField(required=False)
    note = StrictCharField(
        required=False, allow_blank=True, trim_whitespace=False, max_length=rules.NOTE_MAX_LENGTH
    )
    status = serializers.ChoiceField(
        required=False,
        choices=[str(s) for s in rules.APP_TARGETS],
        help_text="shipped (from paid), cancelled (from paid; the payment is refunded) or refunded "
        "(grants a requested refund). Asking for the current status changes nothing.",
    )
