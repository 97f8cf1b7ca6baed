"""Celery entry points of the upload flow (autodiscovered): each takes ids and calls one service."""

from celery import shared_task

from apps.uploads import services
from apps.uploads.store import StoreError

# Transient store failures retry with exponential backoff (jittered), at most this many times.
STORE_RETRY = {
    "autoretry_for": (StoreError,),
    "retry_backoff": 30,
    "retry_backoff_max": 900,
    "retry_jitter": True,
    "max_retries": 6,
}


@shared_task(**STORE_RETRY)
def upload_verify(upload_id: int, attempt: int = 0) -> str:
    """spec §3: without a finalize call the service checks the upload itself, again until it expires."""
    outcome = services.upload_verify(upload_id=upload_id)
    if outcome == "waiting":
        countdown = services.upload_verify_next_countdown(upload_id=upload_id, attempt=attempt + 1)
        if countdown is not None:
            upload_verify.apply_async((upload_id,), {"attempt": attempt + 1}, countdown=countdown)
    return outcome


@shared_task(**STORE_RETRY)
def uploads_sweep_expired() -> dict:
    """Periodic (CELERY_BEAT_SCHEDULE): settle overdue pending uploads, delete stray objects."""
    return services.uploads_sweep_expired()
