"""Writes of orders: placing one through the payment backend, the status moves of rules.TRANSITIONS.

Every status change locks the row, re-checks the rule, saves with update_fields and records its webhook
event (spec §6) in the same transaction, so an event exists exactly when its change is committed. The
payment backend is called between transactions, never inside one (STYLE.md).
"""
import logging

from django.db import transaction
from django.utils import timezone

from apps.core.domain.exceptions import Conflict, RuleViolation, ValidationFailed
from apps.orders import payments, rules, selectors
from apps.orders.models import Order
from apps.orders.wire import order_wire_dict
from apps.webhooks import services as webhook_services

log = logging.getLogger(__name__)
S = Order.Status


def _locked(order: Order) -> Order:
    return Order.objects.select_for_update().get(pk=order.pk)


def _emit(order: Order, event: str | None) -> None:
    if event:
        webhook_services.webhook_event_record(
            application=order.application, event=event, payload={"order": order_wire_dict(order)}
        )


def _refuse(reasons: list[str]) -> None:
    raise RuleViolation(reasons[0], errors={"status": reasons}, error_type="STATUS_NOT_ALLOWED")


def _apply_status(order: Order, target: str, fields: set[str], *, now) -> str | None:
    """Set `target` on the locked order with its timestamps; the event the move emits."""
    event = rules.order_transition_event(current=order.status, target=target)
    order.status = target
    fields.add("status")
    if target == S.PAID:
        order.paid_at = now
        fields.add("paid_at")
    elif target == S.SHIPPED:
        order.is_shipped = True
        fields.add("is_shipped")
    elif target == S.REFUND_REQUESTED:
        order.refund_requested_at = now
        fields.add("refund_requested_at")
    return event


def _save(order: Order, fields: set[str]) -> None:
    if fields:
        order.save(update_fields=[*fields, "modified_date"])


def order_place(*, buyer, thing, application, amount, charges: list[dict], address: dict):
    """Create the order, charge it through the payment backend and mark it paid.

    `charges` are {name, amount: Decimal}; `address` the checkout form's fields. A declined charge
    cancels the order (RuleViolation PAYMENT_DECLINED); an unknown backend failure leaves it pending.
    Side effects: the order_created webhook, in the transaction that marks it paid.
    """
    is_authorized = selectors.application_is_authorized_by(application=application, user=buyer)
    reasons = rules.order_place_blockers(
        buyer=buyer, thing=thing, application=application, is_authorized=is_authorized
    )
    if reasons:
        raise RuleViolation(reasons[0], errors={"order": reasons})
    errors = rules.order_amount_blockers(amount=amount, charges=charges)
    if errors:
        field, messages = next(iter(errors.items()))
        raise ValidationFailed(f"{field}: {messages[0]}", errors=errors)
    backend = payments.payment_backend_get()
    with transaction.atomic():
        order = Order.objects.create(
            buyer=buyer,
            thing=thing,
            application=application,
            amount=amount,
            charges=[{"name": c["name"].strip(), "amount": f"{c['amount']:.2f}"} for c in charges],
            validated_shipping_address=rules.order_address_text(**address),
            payment_backend=backend.name,
        )
    try:
        reference = backend.charge(order)
    except payments.PaymentFailed as exc:
        _order_payment_fail(order)
        raise RuleViolation(f"The payment was declined: {exc}", error_type="PAYMENT_DECLINED") from None
    except Exception:
        # The outcome is unknown (the money may have moved): the order stays pending for staff to settle.
        log.exception("Payment backend failed while charging order %s", order.pk)
        raise RuleViolation(
            "The payment could not be completed. Your order is pending until we know whether it was "
            "paid; please do not pay again.",
            error_type="PAYMENT_ERROR",
        ) from None
    with transaction.atomic():
        locked = _locked(order)
        if locked.status != S.PENDING:
            return locked
        fields: set[str] = set()
        event = _apply_status(locked, S.PAID, fields, now=timezone.now())
        locked.payment_reference = reference
        fields.add("payment_reference")
        _save(locked, fields)
        _emit(locked, event)
    return locked


def _order_payment_fail(order: Order) -> None:
    with transaction.atomic():
        locked = _locked(order)
        if locked.status == S.PENDING:
            locked.status = S.CANCELLED
            _save(locked, {"status"})


def order_update(*, order: Order, data: dict, actor: str = "app") -> Order:
    """PATCH by the owning app (docs/decisions.md: Orders): `is_shipped`, `note` and a `status` move of
    rules.APP_TARGETS; moving into the current status is a no-op. Money goes back through the payment
    backend for a granted refund or a cancelled paid order.
    Side effects: the move's webhook event (order_refunded), in the transaction that makes it.
    """
    target = data.get("status")
    refund_reference = ""
    if target is not None:
        # Checked before the backend call, so a refused move never touches the money.
        current = Order.objects.values_list("status", flat=True).get(pk=order.pk)
        reasons = rules.order_transition_blockers(current=current, target=target, actor=actor)
        if reasons:
            _refuse(reasons)
        if rules.order_transition_refunds(current=current, target=target):
            refund_reference = _refund(order)
    with transaction.atomic():
        locked = _locked(order)
        fields: set[str] = set()
        event = None
        now = timezone.now()
        if target is not None and locked.status != target:
            reasons = rules.order_transition_blockers(current=locked.status, target=target, actor=actor)
            if reasons:
                if refund_reference:
                    # The order moved between the check and the lock, after the money went back.
                    log.error("Order %s refunded (%s) but now %s: settle by hand", order.pk, refund_reference,
                              locked.status)
                _refuse(reasons)
            if rules.order_transition_refunds(current=locked.status, target=target):
                if not refund_reference:
                    raise Conflict("The order changed meanwhile; try again.")
                locked.refund_reference = refund_reference
                locked.refunded_at = now
                fields |= {"refund_reference", "refunded_at"}
            event = _apply_status(locked, target, fields, now=now)
        if "is_shipped" in data and locked.is_shipped != data["is_shipped"]:
            locked.is_shipped = data["is_shipped"]
            fields.add("is_shipped")
        if "note" in data and locked.note != data["note"]:
            locked.note = data["note"]
            fields.add("note")
        errors = rules.order_update_blockers(status=locked.status, is_shipped=locked.is_shipped)
        if errors:
            field, messages = next(iter(errors.items()))
            raise ValidationFailed(f"{field}: {messages[0]}", errors=errors)
        _save(locked, fields)
        _emit(locked, event)
    return locked


def _refund(order: Order) -> str:
    try:
        return payments.payment_backend_get().refund(order)
    except payments.PaymentFailed as exc:
        raise RuleViolation(f"The refund was declined: {exc}", error_type="REFUND_DECLINED") from None


def order_ship(*, order: Order, actor: str = "app") -> Order:
    """paid → shipped (is_shipped true)."""
    return order_update(order=order, data={"status": S.SHIPPED}, actor=actor)


def order_cancel(*, order: Order, actor: str = "app") -> Order:
    """paid → cancelled, the payment refunded through the backend."""
    return order_update(order=order, data={"status": S.CANCELLED}, actor=actor)


def order_refund_grant(*, order: Order, actor: str = "app") -> Order:
    """refund_requested → refunded through the backend. Side effects: the order_refunded webhook."""
    return order_update(order=order, data={"status": S.REFUNDED}, actor=actor)


def order_refund_refuse(*, order: Order) -> Order:
    """Staff refuse a requested refund: back to shipped or paid (rules.order_refund_refusal_target)."""
    with transaction.atomic():
        locked = _locked(order)
        if locked.status != S.REFUND_REQUESTED:
            _refuse([f"Only a requested refund can be refused; this order is {locked.status}."])
        fields: set[str] = set()
        _apply_status(locked, rules.order_refund_refusal_target(locked), fields, now=timezone.now())
        _save(locked, fields)
    return locked


def order_refund_request(*, order: Order, buyer, reason: str, now=None) -> Order:
    """The buyer asks for their money back (paid or shipped, within 30 days of payment); asking again is a
    no-op. Side effects: the refund_requested webhook, in the same transaction."""
    now = now or timezone.now()
    reason = reason.strip()
    if not reason:
        message = "Say why you want a refund."
        raise ValidationFailed(f"reason: {message}", errors={"reason": [message]})
    if len(reason) > rules.REFUND_REASON_MAX_LENGTH:
        message = f"Keep the reason under {rules.REFUND_REASON_MAX_LENGTH} characters."
        raise ValidationFailed(f"reason: {message}", errors={"reason": [message]})
    with transaction.atomic():
        locked = _locked(order)
        if locked.buyer_id != buyer.pk:
            raise RuleViolation("Only the buyer can ask for a refund.")
        if locked.status == S.REFUND_REQUESTED:
            return locked
        reasons = rules.order_refund_request_blockers(locked, now=now)
        if reasons:
            _refuse(reasons)
        fields = {"refund_reason"}
        locked.refund_reason = reason
        event = _apply_status(locked, S.REFUND_REQUESTED, fields, now=now)
        _save(locked, fields)
        _emit(locked, event)
    return locked
