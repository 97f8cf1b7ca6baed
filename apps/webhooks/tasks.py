"""Celery entry points of webhook delivery (autodiscovered): each takes ids and calls one service.

HTTP failures are not Celery retries: they are the outbox's retry schedule (rules.RETRY_SCHEDULE),
kept in the row. Celery retries only cover the database being briefly unreachable.
"""
from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.broker.enqueue import retry_policy
from apps.webhooks import services

DB_RETRY = retry_policy(OperationalError, InterfaceError, backoff=5, backoff_max=60)


@shared_task(**DB_RETRY)
def deliver(delivery_id: int) -> str | None:
    """Send one attempt of a pending, due delivery; a no-op when another worker has it or it is not due."""
    delivery = services.webhook_deliver(delivery_id=delivery_id)
    return delivery.status if delivery else None


@shared_task(**DB_RETRY)
def webhooks_dispatch_due() -> int:
    """Periodic (every 30 s): enqueue deliveries whose next attempt is due."""
    return services.webhook_dispatch_due()


@shared_task(**DB_RETRY)
def webhooks_sweep_stale() -> int:
    """Periodic (every minute): re-queue deliveries whose worker died mid-attempt."""
    return services.webhook_sweep_stale()
