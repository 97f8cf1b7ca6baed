"""Celery entry points of Thing packages (package-url ZIP).

The task keeps the name it had before uploads was split into parts: queued messages name it.
"""
from celery import shared_task

from apps.core.broker.enqueue import DATABASE_OUTAGE, retry_policy
from apps.uploads.packages import services
from apps.uploads.store import StoreError


@shared_task(name="apps.uploads.package_tasks.package_build", **retry_policy(StoreError, *DATABASE_OUTAGE, backoff=5, max_retries=10))
def package_build(thing_id: int) -> None:
    # Safe to run twice: a ready package of the current signature is left alone.
    services.thing_package_build(thing_id=thing_id)
