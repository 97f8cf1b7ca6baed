from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.orders import rules
from apps.orders.models import Order

S = Order.Status


@pytest.mark.parametrize(
    "current,target",
    [(S.PAID, S.SHIPPED), (S.PAID, S.CANCELLED), (S.REFUND_REQUESTED, S.REFUNDED)],
)
def test_the_app_may_make_the_decided_moves(current, target):
    assert rules.order_transition_blockers(current=current, target=target, actor="app") == []


@pytest.mark.parametrize(
    "current,target",
    [
        (S.PENDING, S.SHIPPED),
        (S.PENDING, S.CANCELLED),  # only the checkout cancels an order whose charge is in flight
        (S.SHIPPED, S.CANCELLED),
        (S.PAID, S.REFUNDED),  # docs/decisions.md: refunded grants a *requested* refund
        (S.SHIPPED, S.REFUNDED),
        (S.REFUNDED, S.SHIPPED),
        (S.CANCELLED, S.SHIPPED),
        (S.REFUND_REQUESTED, S.SHIPPED),
    ],
)
def test_the_app_may_not_make_other_moves(current, target):
    assert rules.order_transition_blockers(current=current, target=target, actor="app") == [
        f"An order cannot go from {current} to {target}."
    ]


def test_moving_into_the_current_status_has_no_blockers():
    assert rules.order_transition_blockers(current=S.REFUNDED, target=S.REFUNDED, actor="app") == []


def test_staff_may_make_the_app_moves_and_refuse_refunds_but_the_app_may_not_refuse():
    assert rules.order_transition_blockers(current=S.PAID, target=S.SHIPPED, actor="staff") == []
    assert rules.order_transition_blockers(current=S.REFUND_REQUESTED, target=S.PAID, actor="staff") == []
    assert rules.order_transition_blockers(current=S.REFUND_REQUESTED, target=S.PAID, actor="app")


def test_only_granting_and_cancelling_a_paid_order_move_money_back():
    assert rules.order_transition_refunds(current=S.REFUND_REQUESTED, target=S.REFUNDED)
    assert rules.order_transition_refunds(current=S.PAID, target=S.CANCELLED)
    assert not rules.order_transition_refunds(current=S.PAID, target=S.SHIPPED)


def test_the_spec_events_map_to_their_moves():
    assert rules.order_transition_event(current=S.PENDING, target=S.PAID) == "order_created"
    assert rules.order_transition_event(current=S.SHIPPED, target=S.REFUND_REQUESTED) == "refund_requested"
    assert rules.order_transition_event(current=S.REFUND_REQUESTED, target=S.REFUNDED) == "order_refunded"
    assert rules.order_transition_event(current=S.PAID, target=S.CANCELLED) is None


def _order(status, paid_days_ago):
    return Order(status=status, paid_at=timezone.now() - timedelta(days=paid_days_ago))


@pytest.mark.parametrize("status", [S.PAID, S.SHIPPED])
def test_a_refund_can_be_requested_29_days_after_payment(status):
    assert rules.order_refund_request_blockers(_order(status, 29), now=timezone.now()) == []


def test_a_refund_cannot_be_requested_31_days_after_payment():
    assert rules.order_refund_request_blockers(_order(S.PAID, 31), now=timezone.now()) == [
        "Refunds can be requested up to 30 days after payment."
    ]


@pytest.mark.parametrize("status", [S.PENDING, S.REFUNDED, S.CANCELLED])
def test_a_refund_cannot_be_requested_for_an_unpaid_or_closed_order(status):
    assert rules.order_refund_request_blockers(_order(status, 1), now=timezone.now())


def test_the_amount_must_equal_the_sum_of_the_charges():
    charges = [{"name": "Item", "amount": Decimal("15.00")}, {"name": "Shipping", "amount": Decimal("4.99")}]
    assert rules.order_amount_blockers(amount=Decimal("19.99"), charges=charges) == {}
    assert rules.order_amount_blockers(amount=Decimal("20.00"), charges=charges) == {
        "charges": ["The charges must add up to the amount."]
    }


@pytest.mark.parametrize("amount", ["0", "-1", "10000.01", "1.001"])
def test_the_amount_must_be_positive_bounded_and_in_cents(amount):
    value = Decimal(amount)
    assert "amount" in rules.order_amount_blockers(amount=value, charges=[{"name": "Item", "amount": value}])


def test_each_charge_needs_a_name():
    charges = [{"name": " ", "amount": Decimal("1.00")}]
    assert "charges" in rules.order_amount_blockers(amount=Decimal("1.00"), charges=charges)


def test_the_read_only_and_owner_tokens_see_all_orders_but_only_the_owner_may_update():
    class App:
        user_id = 1

    class Token:
        application = App()

        def __init__(self, user_id):
            self.user_id = user_id

    assert rules.order_token_sees_all_of_app(Token(None)) and not rules.order_token_can_update(Token(None))
    assert rules.order_token_sees_all_of_app(Token(1)) and rules.order_token_can_update(Token(1))
    assert not rules.order_token_sees_all_of_app(Token(2)) and not rules.order_token_can_update(Token(2))
