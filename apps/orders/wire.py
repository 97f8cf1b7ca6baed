"""The order's wire shape (spec §2 Order), shared by the API and the webhook payloads."""
from datetime import timezone as dt_timezone
from decimal import Decimal

# spec §2: 'YYYY-MM-DD hh:mm:ss' (UTC, as File `date`: docs/decisions.md Timestamps).
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"


def _money(value) -> str:
    return f"{Decimal(str(value)):.2f}"


def _date(value) -> str:
    return value.astimezone(dt_timezone.utc).strftime(DATE_FORMAT) if value else ""


def order_wire_dict(order) -> dict:
    """spec §2: every value a string (charges an array of {name, amount} with string amounts)."""
    return {
        "id": str(order.pk),
        "thing_id": str(order.thing_id),
        "amount": _money(order.amount),
        "add_date": _date(order.add_date),
        "modified_date": _date(order.modified_date),
        "charges": [{"name": str(c["name"]), "amount": _money(c["amount"])} for c in order.charges],
        "fees": _money(order.fees),
        "validated_shipping_address": order.validated_shipping_address,
        "is_shipped": "true" if order.is_shipped else "false",
        "status": order.status,
        "note": order.note,
    }
