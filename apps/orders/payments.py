"""Pluggable payment backends (settings.PAYMENT_BACKEND): `charge(order) -> reference`,
`refund(order) -> reference`, raising PaymentFailed when the provider declines.

Services call a backend outside any database transaction (STYLE.md: no network call inside one). A real
backend should send `order-<id>-charge` / `order-<id>-refund` as the provider's idempotency key, so a
retried or concurrent call moves the money once.
"""
from django.conf import settings
from django.utils.module_loading import import_string


class PaymentFailed(Exception):
    """The provider refused the charge or refund; the message is safe to show the buyer."""


class PaymentBackend:
    name = ""
    # True for a backend that moves no money: production refuses it unless PAYMENT_ALLOW_TEST_BACKEND
    # says so (apps.orders.checks; docs/security.md, issue 22).
    charges_nobody = False

    def charge(self, order) -> str:
        raise NotImplementedError

    def refund(self, order) -> str:
        raise NotImplementedError


class TestPaymentBackend(PaymentBackend):
    """Charges nobody: every charge and refund succeeds at once. The references depend only on the order,
    as a provider's idempotency key would make them."""

    name = "test"
    charges_nobody = True

    def charge(self, order) -> str:
        return f"test_ch_{order.pk}"

    def refund(self, order) -> str:
        return f"test_re_{order.pk}"


def payment_backend_get() -> PaymentBackend:
    return import_string(settings.PAYMENT_BACKEND)()
