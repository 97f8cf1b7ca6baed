"""Celery entry points of device sign-in (settings CELERY_IMPORTS; beat runs the sweep hourly)."""
from celery import shared_task
from django.db import InterfaceError, OperationalError

from apps.core.broker.enqueue import retry_policy
from apps.oauth.device import services

DB_RETRY = retry_policy(OperationalError, InterfaceError, backoff=5, backoff_max=60)


@shared_task(**DB_RETRY)
def device_grants_purge() -> int:
    """Periodic (hourly): delete device sign-ins that expired more than a day ago (idempotent)."""
    return services.device_grants_purge()
