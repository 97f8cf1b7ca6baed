"""Celery entry points of the upload flow: each takes ids and calls one service.

The tasks keep the names they had before uploads was split into parts: queued messages and the beat
schedule name them.
"""

from celery import shared_task

from apps.core.broker.enqueue import DATABASE_OUTAGE, retry_policy
from apps.uploads.flow import services
from apps.uploads.store import StoreError

# Store and database outages retry with exponential backoff (from 2 s, jittered, capped at 60 s), at
# most 12 times (about 8 minutes).
STORE_RETRY = retry_policy(StoreError, *DATABASE_OUTAGE, backoff=2, backoff_max=60, max_retries=12)


@shared_task(name="apps.uploads.tasks.upload_verify", **STORE_RETRY)
def upload_verify(upload_id: int, attempt: int = 0) -> str:
    """spec §3: without a finalize call the service checks the upload itself, again until it expires."""
    outcome = services.upload_verify(upload_id=upload_id)
    if outcome == "waiting":
        services.upload_verify_schedule_next(upload_id=upload_id, attempt=attempt + 1)
    return outcome


@shared_task(name="apps.uploads.tasks.uploads_sweep_expired", **STORE_RETRY)
def uploads_sweep_expired() -> dict:
    """Periodic (CELERY_BEAT_SCHEDULE): settle overdue pending uploads, delete stray objects."""
    return services.uploads_sweep_expired()
