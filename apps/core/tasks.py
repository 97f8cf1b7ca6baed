"""Celery entry points of the ground floor (autodiscovered)."""
from celery import shared_task

from apps.core.broker import enqueue


@shared_task(ignore_result=True)
def pending_tasks_redrive() -> dict[str, int]:
    """Periodic (CELERY_BEAT_SCHEDULE, every few seconds): publish pending tasks whose broker was down or
    whose delay is over. Safe to run twice at once: each row is claimed."""
    return enqueue.pending_tasks_redrive()
