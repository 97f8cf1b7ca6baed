"""Celery entry points of Thing packages (package-url ZIP)."""
from celery import shared_task

from apps.uploads import packaging
from apps.uploads.store import StoreError


@shared_task(
    autoretry_for=(StoreError,),
    retry_backoff=10,
    retry_backoff_max=300,
    retry_jitter=True,
    max_retries=5,
)
def package_build(thing_id: int) -> None:
    # Safe to run twice: a ready package of the current signature is left alone.
    packaging.thing_package_build(thing_id=thing_id)
