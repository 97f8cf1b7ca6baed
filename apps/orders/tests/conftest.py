"""Order fixtures: the app (owned by `seller`), its buyers' tokens, its read-only token, and the webhook
events the services record."""
from dataclasses import dataclass

import pytest
from django.db import connection

from apps.accounts.tests.factories import UserFactory
from tests.support.api import bearer_client
from apps.developers.services import application_issue_readonly_token
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory
from apps.orders.models import Order
from apps.orders.tests.factories import OrderFactory
from apps.webhooks import services as webhook_services


@dataclass
class RecordedEvent:
    application_id: int
    event: str
    payload: dict
    status_in_db: str  # read on the caller's connection: the change is already written
    in_transaction: bool


@pytest.fixture
def events(monkeypatch):
    """Every webhook_event_record call. The real outbox write runs too once apps.webhooks implements it."""
    calls: list[RecordedEvent] = []
    real = webhook_services.webhook_event_record

    def record(*, application, event, payload):
        status = Order.objects.values_list("status", flat=True).get(pk=int(payload["order"]["id"]))
        calls.append(RecordedEvent(application.pk, event, payload, status, connection.in_atomic_block))
        try:
            real(application=application, event=event, payload=payload)
        except NotImplementedError:
            pass

    monkeypatch.setattr(webhook_services, "webhook_event_record", record)
    return calls


@pytest.fixture
def seller(db):
    return UserFactory()


@pytest.fixture
def app(seller):
    return ApplicationFactory(user=seller)


@pytest.fixture
def other_app(db):
    return ApplicationFactory()


@pytest.fixture
def buyer(db):
    return UserFactory()


@pytest.fixture
def order(buyer, app):
    return OrderFactory(buyer=buyer, application=app)


@pytest.fixture
def token_client():
    """token_client(user, app) → an APIClient with a real Bearer token of `user` for `app`."""
    return lambda user, app: bearer_client(AccessTokenFactory(user=user, application=app))


@pytest.fixture
def buyer_api(token_client, buyer, app):
    return token_client(buyer, app)


@pytest.fixture
def seller_api(token_client, seller, app):
    return token_client(seller, app)


@pytest.fixture
def readonly_api(app):
    return bearer_client(application_issue_readonly_token(application=app))


@pytest.fixture
def authorized(buyer, app):
    return AppAuthorization.objects.create(user=buyer, application=app)


class DecliningBackend:
    name = "declining"

    def charge(self, order):
        from apps.orders.payments import PaymentFailed

        raise PaymentFailed("card declined")

    def refund(self, order):
        from apps.orders.payments import PaymentFailed

        raise PaymentFailed("refund window closed at the provider")


class BrokenBackend:
    name = "broken"

    def charge(self, order):
        raise ConnectionError("provider unreachable")

    def refund(self, order):
        raise ConnectionError("provider unreachable")


@pytest.fixture
def declining_backend(settings):
    settings.PAYMENT_BACKEND = "apps.orders.tests.conftest.DecliningBackend"


@pytest.fixture
def broken_backend(settings):
    settings.PAYMENT_BACKEND = "apps.orders.tests.conftest.BrokenBackend"
