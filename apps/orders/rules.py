"""Pure rules of orders: the status machine as data, who may make which move, and the "why not" reasons.

docs/decisions.md (Orders) names the statuses and the moves the owning app may make through PATCH; the other
moves belong to the checkout (payment), the buyer (refund request) and staff (refusing a refund).
"""
import re
from datetime import timedelta
from decimal import Decimal

from apps.orders.models import Order

S = Order.Status

# Who may make each move. "payment": the checkout service only; "app": PATCH by the owning app (and
# staff, through the same services); "buyer": the buyer's orders page; "staff": the admin only.
TRANSITIONS: dict[tuple[str, str], str] = {
    (S.PENDING, S.PAID): "payment",
    (S.PENDING, S.CANCELLED): "payment",  # the backend declined the charge
    (S.PAID, S.SHIPPED): "app",
    (S.PAID, S.CANCELLED): "app",  # the seller calls it off: the payment is refunded
    (S.REFUND_REQUESTED, S.REFUNDED): "app",  # docs/decisions.md: grant a requested refund
    (S.PAID, S.REFUND_REQUESTED): "buyer",
    (S.SHIPPED, S.REFUND_REQUESTED): "buyer",
    # Refusing a refund puts the order back where it was (an extension; not reachable through PATCH).
    (S.REFUND_REQUESTED, S.PAID): "staff",
    (S.REFUND_REQUESTED, S.SHIPPED): "staff",
}
# docs/decisions.md: the statuses a PATCH may ask for; anything else is 400.
APP_TARGETS = (S.SHIPPED, S.CANCELLED, S.REFUNDED)
# Moves that send the money back through the payment backend.
REFUNDING = frozenset({(S.PAID, S.CANCELLED), (S.REFUND_REQUESTED, S.REFUNDED)})
# spec §6: the webhook event each move emits (in the transaction that makes it).
EVENTS: dict[tuple[str, str], str] = {
    (S.PENDING, S.PAID): "order_created",
    (S.PAID, S.REFUND_REQUESTED): "refund_requested",
    (S.SHIPPED, S.REFUND_REQUESTED): "refund_requested",
    (S.REFUND_REQUESTED, S.REFUNDED): "order_refunded",
}

REFUND_WINDOW = timedelta(days=30)
NOTE_MAX_LENGTH = 2000
REFUND_REASON_MAX_LENGTH = 2000
ORDER_MAX_AMOUNT = Decimal("10000.00")
CHARGES_MAX = 20
CHARGE_NAME_MAX_LENGTH = 100
CENT = Decimal("0.01")


def order_transition_blockers(*, current: str, target: str, actor: str) -> list[str]:
    """Why `actor` may not move an order from `current` to `target`; empty when it may (or nothing moves)."""
    if current == target:
        return []  # STYLE: repeating a transition into the state reached is a no-op
    allowed_by = TRANSITIONS.get((current, target))
    if allowed_by is None or (allowed_by != actor and not (actor == "staff" and allowed_by == "app")):
        return [f"An order cannot go from {current} to {target}."]
    return []


def order_transition_refunds(*, current: str, target: str) -> bool:
    return (current, target) in REFUNDING


def order_transition_event(*, current: str, target: str) -> str | None:
    return EVENTS.get((current, target))


def order_refund_refusal_target(order: Order) -> str:
    """Where a refused refund goes back to: shipped if the goods went out, else paid."""
    return S.SHIPPED if order.is_shipped else S.PAID


def order_update_blockers(*, status: str, is_shipped: bool) -> dict[str, list[str]]:
    """Field combinations a PATCH may not leave behind."""
    if status == S.SHIPPED and not is_shipped:
        return {"is_shipped": ["A shipped order has is_shipped true."]}
    return {}


def order_refund_request_blockers(order: Order, *, now) -> list[str]:
    """Why the buyer may not ask for a refund now; empty when they may."""
    if order.status == S.REFUND_REQUESTED:
        return []  # already asked: a no-op
    if order.status not in (S.PAID, S.SHIPPED):
        return [f"A refund cannot be requested for a {order.get_status_display().lower()} order."]
    if order.paid_at is None or now - order.paid_at > REFUND_WINDOW:
        return ["Refunds can be requested up to 30 days after payment."]
    return []


def order_can_request_refund(order: Order, *, now) -> bool:
    return order.status != S.REFUND_REQUESTED and not order_refund_request_blockers(order, now=now)


# --- which tokens see and change which orders (spec §4.9, §5) ----------------------------------------


def order_token_sees_all_of_app(token) -> bool:
    """The app's read-only token (no user) and its owner's own token see every order of the app.

    spec §4.9: a user's token sees "all of the user's orders for the application"; the developer who owns
    the app is the seller, so their token sees the app's orders as the read-only token does.
    """
    return token.user_id is None or token.user_id == token.application.user_id


def order_token_can_update(token) -> bool:
    """PATCH: only the owning app acting as the seller: a token of its owner. Never the read-only token
    (docs/decisions.md: it can only GET) and never the buyer's token (a buyer must not grant their own refund:
    Thing apps hold their users' tokens in the browser)."""
    return token.user_id is not None and token.user_id == token.application.user_id


# --- checkout input ----------------------------------------------------------------------------------

POSTAL_CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 \-]{1,9}$")
COUNTRY_CODE = re.compile(r"^[A-Z]{2}$")


def order_amount_blockers(*, amount: Decimal, charges: list[dict]) -> dict[str, list[str]]:
    """Why this amount and these charges ({name, amount: Decimal}) cannot be ordered; empty when fine."""
    errors: dict[str, list[str]] = {}
    if amount <= 0:
        errors.setdefault("amount", []).append("The amount must be positive.")
    elif amount > ORDER_MAX_AMOUNT:
        errors.setdefault("amount", []).append(f"The amount may be at most {ORDER_MAX_AMOUNT}.")
    elif amount.quantize(CENT) != amount:
        errors.setdefault("amount", []).append("The amount has at most two decimal places.")
    if not charges:
        errors.setdefault("charges", []).append("Give at least one charge.")
    elif len(charges) > CHARGES_MAX:
        errors.setdefault("charges", []).append(f"Give at most {CHARGES_MAX} charges.")
    else:
        for charge in charges:
            name, value = charge.get("name"), charge.get("amount")
            if not isinstance(name, str) or not name.strip() or len(name) > CHARGE_NAME_MAX_LENGTH:
                errors.setdefault("charges", []).append(
                    f"Each charge needs a name of 1 to {CHARGE_NAME_MAX_LENGTH} characters."
                )
                break
            if not isinstance(value, Decimal) or value < 0 or value.quantize(CENT) != value:
                errors.setdefault("charges", []).append(
                    "Each charge amount is a non-negative number with at most two decimal places."
                )
                break
        else:
            if "amount" not in errors and sum(c["amount"] for c in charges) != amount:
                errors.setdefault("charges", []).append("The charges must add up to the amount.")
    return errors


def order_address_text(*, name: str, street: str, city: str, postal_code: str, country: str) -> str:
    """The validated shipping address as the wire's single text field (spec §2)."""
    return "\n".join([name.strip(), street.strip(), f"{postal_code.strip()} {city.strip()}", country])


def order_place_blockers(*, buyer, thing, application, is_authorized: bool) -> list[str]:
    """Why `buyer` may not order `thing` through `application`; empty when they may."""
    reasons = []
    if not thing.is_published:
        reasons.append("This Thing is not published.")
    if application.approval_state == application.Approval.REJECTED:
        reasons.append("This application is not available.")
    elif not is_authorized:
        # The dialog runs inside an app the buyer authorized; this also keeps an unapproved app to the
        # users it may serve (spec §8: 10), whom the OAuth flow already counts.
        reasons.append("Authorize this application before ordering through it.")
    return reasons
