"""Celery entry points of file and image processing: each takes ids and calls one service.

Bad content never raises (the service marks the row failed); only transient failures do: the store or
the database unreachable. Those retry with exponential backoff (from 2 s, jittered, capped at 60 s), at
most 12 times (about 8 minutes). A row whose retries ran out stays `processing`; the stuck-processing
sweep runs the task again later.

Each run has a time limit (settings: PROCESSING_TIME_LIMIT_SECONDS, docs/reliability.md: finding 8). At the
soft limit the run stops where it is and the row fails as too complex; a run that ignores it (stuck in
native code) is killed at the hard limit by the worker's parent process, which fails the row
(ProcessingRequest). The tasks run on the `processing` queue (settings: CELERY_TASK_ROUTES).
"""
import logging
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.worker.request import Request
from django.conf import settings
from django.db import connection

from apps.core.broker.enqueue import DATABASE_OUTAGE, retry_policy
from apps.uploads.processing import services
from apps.uploads.store import StoreError

log = logging.getLogger(__name__)

TRANSIENT: tuple[type[BaseException], ...] = (StoreError, *DATABASE_OUTAGE)
RETRY = retry_policy(*TRANSIENT, backoff=2, backoff_max=60, max_retries=12)  # 2, 4, 8 … 60 s
LIMITS = {
    "soft_time_limit": settings.PROCESSING_TIME_LIMIT_SECONDS,
    "time_limit": settings.PROCESSING_HARD_TIME_LIMIT_SECONDS,
}


class ProcessingRequest(Request):
    """A processing task's request in the worker's parent process: a run killed at the hard time limit
    cannot mark its own row, so the parent does (the message is acknowledged: not run again).

    The time limits are the worker's settings, not the ones the publishing process wrote into the
    message: the worker is what the limit protects, and a web process on older settings must not lift it."""

    @property
    def time_limits(self):
        return (self.task.time_limit, self.task.soft_time_limit)

    @time_limits.setter
    def time_limits(self, value):
        pass  # the message's (the publisher's) limits: see the class docstring

    def on_timeout(self, soft, timeout):
        super().on_timeout(soft, timeout)
        if soft:
            return
        try:
            services.processing_time_out(kind=self.task.name.rsplit(".", 1)[-1], record_id=int(self.args[0]),
                                         seconds=timeout)
        except Exception:  # the sweep re-runs it; the parent process must not die of it
            log.exception("could not fail %s%r after its hard time limit", self.task.name, self.args)
        finally:
            connection.close()  # the parent forks pool children: it keeps no database connection open


def _run_within_limit(task, service, kind: str, record_id: int) -> str:
    """Run the service; past the soft time limit, fail the row as too complex. A store or database call
    that the limit interrupted surfaces as that call's error (botocore wraps whatever a request raised),
    which must not retry: the same file would take as long again. When a library swallowed the limit
    instead (botocore sending the interrupted request again), the service's own check of the deadline
    before the row goes live (services.ProcessingOverTime) fails it the same way."""
    deadline = time.monotonic() + task.soft_time_limit if task.soft_time_limit else None
    try:
        return service(record_id, deadline)
    except (SoftTimeLimitExceeded, services.ProcessingOverTime):
        pass
    except TRANSIENT:
        if deadline is None or time.monotonic() < deadline:
            raise  # a real outage: retried with backoff
    return services.processing_time_out(kind=kind, record_id=record_id, seconds=task.soft_time_limit)


@shared_task(bind=True, Request=ProcessingRequest, **RETRY, **LIMITS)
def file_process(self, file_id: int) -> str:
    return _run_within_limit(
        self, lambda pk, deadline: services.file_process(file_id=pk, deadline=deadline), "file_process", file_id
    )


@shared_task(bind=True, Request=ProcessingRequest, **RETRY, **LIMITS)
def image_process(self, image_id: int) -> str:
    return _run_within_limit(
        self, lambda pk, deadline: services.image_process(image_id=pk, deadline=deadline), "image_process", image_id
    )


@shared_task(**retry_policy(*DATABASE_OUTAGE, backoff=5))
def processing_requeue_stuck() -> dict:
    """Periodic (CELERY_BEAT_SCHEDULE): re-enqueue files and images stuck in `processing`."""
    claimed = services.processing_requeue_stuck()
    for file_id in claimed["files"]:
        file_process.delay(file_id)
    for image_id in claimed["images"]:
        image_process.delay(image_id)
    return claimed
