"""Celery entry points of the upload flow: each takes ids and calls one service.

The tasks keep the names they had before uploads was split into parts: queued messages and the beat
schedule name them.
"""

from celery import shared_task

from apps.core.enqueue import retry_policy
from apps.uploads.flow import services
from apps.uploads.store import StoreError

# Transient store failures retry with exponential backoff (jittered), at most 6 times.
STORE_RETRY = retry_policy(StoreError, backoff=30, backoff_max=900, max_retries=6)


@shared_task(name="apps.uploads.tasks.upload_verify", **STORE_RETRY)
def upload_verify(upload_id: int, attempt: int = 0) -> str:
    """spec §3: without a finalize call the service checks the upload itself, again until it expires."""
    outcome = services.upload_verify(upload_id=upload_id)
    if outcome == "waiting":
        countdown = services.upload_verify_next_countdown(upload_id=upload_id, attempt=attempt + 1)
        if countdown is not None:
            upload_verify.apply_async((upload_id,), {"attempt": attempt + 1}, countdown=countdown)
    return outcome


@shared_task(name="apps.uploads.tasks.uploads_sweep_expired", **STORE_RETRY)
def uploads_sweep_expired() -> dict:
    """Periodic (CELERY_BEAT_SCHEDULE): settle overdue pending uploads, delete stray objects."""
    return services.uploads_sweep_expired()
