"""Celery entry points of file and image processing: each takes ids and calls one service.

Bad content never raises (the service marks the row failed); only transient store failures do, and
those are retried with exponential backoff (from 30 s, jittered, capped at 15 minutes), at most 5 times. A row
whose retries ran out stays `processing`; running the task again later picks it up.
"""
from celery import shared_task

from apps.core.enqueue import retry_policy
from apps.uploads.processing import services
from apps.uploads.store import StoreError

RETRY = retry_policy(StoreError, backoff=30, backoff_max=900, max_retries=5)  # 30, 60, 120 … seconds


@shared_task(bind=True, acks_late=True, **RETRY)
def file_process(self, file_id: int) -> str:
    return services.file_process(file_id=file_id)


@shared_task(bind=True, acks_late=True, **RETRY)
def image_process(self, image_id: int) -> str:
    return services.image_process(image_id=image_id)


@shared_task
def processing_requeue_stuck() -> dict:
    """Periodic (CELERY_BEAT_SCHEDULE): re-enqueue files and images stuck in `processing`."""
    claimed = services.processing_requeue_stuck()
    for file_id in claimed["files"]:
        file_process.delay(file_id)
    for image_id in claimed["images"]:
        image_process.delay(image_id)
    return claimed
