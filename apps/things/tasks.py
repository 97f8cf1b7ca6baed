"""Celery entry points of things: take ids, call one service."""
from celery import shared_task

from apps.core.broker.enqueue import DATABASE_OUTAGE, retry_policy
from apps.things import services


@shared_task(**retry_policy(*DATABASE_OUTAGE, backoff=5))
def thing_published_notify(thing_id: int) -> None:
    # Safe to run twice: one notification per Thing and recipient (notifications_once).
    services.thing_published_notify(thing_id=thing_id)
