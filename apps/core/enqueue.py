"""Publishing Celery tasks whose work is already recorded in a row that a periodic sweep re-queues.

The row (a webhook outbox Delivery, a pending Upload, a file or image in `processing`, a package
`building`) is the source of truth and the message only a wake-up call, so a broker outage must not fail
the request that committed the row. A publish retries once at once (settings:
CELERY_TASK_PUBLISH_RETRY_POLICY; a pooled connection may be stale after a Redis restart); when Redis is
still unreachable the failure is logged here and the sweep picks the row up later (docs/reliability.md
lists each sweep and its delay).

Only broker errors are swallowed: in eager mode (tests) a task's own exception still propagates.
"""
import logging
from functools import partial

import redis
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerOperationalError

log = logging.getLogger(__name__)


def task_enqueue(task, args=(), kwargs=None, *, countdown: float | None = None, sweep: str) -> bool:
    """Publish `task`; False (logged, naming the `sweep` that will re-queue it) when the broker is down."""
    try:
        if countdown:
            task.apply_async(tuple(args), kwargs or {}, countdown=countdown)
        else:
            task.delay(*args, **(kwargs or {}))
    except (BrokerOperationalError, redis.RedisError) as exc:
        log.warning("Could not queue %s%r (%s); %s will pick it up", task.name, tuple(args), exc, sweep)
        return False
    return True


def task_enqueue_on_commit(task, args=(), kwargs=None, *, countdown: float | None = None, sweep: str) -> None:
    """task_enqueue once the current transaction commits (immediately in autocommit)."""
    transaction.on_commit(partial(task_enqueue, task, args, kwargs, countdown=countdown, sweep=sweep))


def retry_policy(*exceptions: type[BaseException], backoff: int, backoff_max: int, max_retries: int = 5) -> dict:
    """A task's retries of transient failures (`@shared_task(**retry_policy(StoreError, …))`): exponential
    backoff from `backoff` seconds, jittered, capped at `backoff_max`, at most `max_retries` times. Only
    those exceptions retry; anything else is a bug or bad content, which retrying would not fix."""
    return {
        "autoretry_for": exceptions,
        "retry_backoff": backoff,
        "retry_backoff_max": backoff_max,
        "retry_jitter": True,
        "max_retries": max_retries,
    }
