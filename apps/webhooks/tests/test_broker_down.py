"""The outbox with the broker unreachable: the event is recorded, the dispatch sweep sends it later.

The Celery app really publishes (not eager) to a port where nothing listens, as when Redis is down;
then the broker is back (eager again, as in the other tests) and the periodic sweep runs.
"""
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from tests.support.api import UnreachableBroker
from apps.webhooks import rules, services


@pytest.fixture
def broker():
    broker = UnreachableBroker()
    yield broker
    broker.up()


def test_an_event_recorded_while_the_broker_is_down_is_sent_by_the_dispatch_sweep(
    hook_app, receiver, allow_private, broker, django_capture_on_commit_callbacks, caplog
):
    broker.down()
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            delivery = services.webhook_event_record(
                application=hook_app, event="order_created", payload={"order": {"id": "7"}}
            )
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count, receiver.requests) == ("pending", 0, [])
    assert "webhooks_dispatch_due will pick it up" in caplog.text

    broker.up()
    later = timezone.now() + rules.DISPATCH_GRACE + timedelta(seconds=1)
    assert services.webhook_dispatch_due(now=later) == 1
    delivery.refresh_from_db()
    assert delivery.status == "succeeded"
    assert [r["headers"]["webhook-id"] for r in receiver.requests] == [delivery.message_id]


def test_a_redelivery_asked_while_the_broker_is_down_still_succeeds(
    hook_app, receiver, allow_private, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        delivery = services.webhook_event_record(application=hook_app, event="ping", payload={})
    delivery.refresh_from_db()
    assert delivery.status == "succeeded"
    broker.down()
    with django_capture_on_commit_callbacks(execute=True):
        services.delivery_redeliver(delivery=delivery)
    delivery.refresh_from_db()
    assert (delivery.status, len(receiver.requests)) == ("pending", 1)  # due now, for the sweep
