"""Publishing Celery tasks so that a broker outage never fails a request and never loses work.

Two ways in, by what backs the work:

- `task_enqueue_on_commit`: durable. A pending-task row (apps/core/models.py, `core_pendingtask`) is
  written in the caller's transaction; on commit the message is published and the row deleted. When the
  broker does not answer, the row stays and `pending_tasks_redrive` (beat, every PENDING_REDRIVE_SECONDS)
  publishes it as soon as the broker answers again: recovery in seconds, not at the next sweep.
- `task_enqueue`: a wake-up call for work whose own row a periodic sweep re-queues anyway (a webhook
  outbox Delivery, a pending Upload). A broker failure is logged and the sweep picks the row up later.

A publish retries once at once (settings: CELERY_TASK_PUBLISH_RETRY_POLICY; a pooled connection may be
stale after a Redis restart), then fails fast. Either way a countdown longer than MAX_BROKER_COUNTDOWN
becomes a row due at that time instead of a broker countdown: the broker hands a message that a worker
holds longer than the visibility timeout (settings: CELERY_BROKER_TRANSPORT_OPTIONS) to a second worker,
so long delays wait in the database instead.

Only broker errors are swallowed: in eager mode (tests) a task's own exception still propagates.
"""
import logging
from datetime import timedelta
from functools import partial

import redis
from celery import current_app
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerOperationalError

from apps.core.models import PendingTask

log = logging.getLogger(__name__)

# Below the broker's visibility timeout (90 s) minus a task's run time: longer waits are rows.
MAX_BROKER_COUNTDOWN = 60
# A row is left to its on-commit publish this long before the redrive may take it.
PUBLISH_GRACE = timedelta(seconds=2)
# A redrive that claimed a row and died before publishing it leaves the row to the next one after this.
CLAIM_LEASE = timedelta(seconds=30)
REDRIVE_BATCH = 200
# What a database outage raises (connection refused or dropped, server restarting): worth a retry.
DATABASE_OUTAGE: tuple[type[BaseException], ...] = (OperationalError, InterfaceError)

BROKER_ERRORS = (BrokerOperationalError, redis.RedisError, ConnectionError)


def _publish(task, args, kwargs, countdown: float | None) -> str | None:
    """Publish; None when it went out, else the broker's error (logged by the caller)."""
    try:
        if countdown:
            task.apply_async(tuple(args), kwargs or {}, countdown=countdown)
        else:
            task.delay(*args, **(kwargs or {}))
    except BROKER_ERRORS as exc:
        return str(exc) or exc.__class__.__name__
    return None


def _pending_add(task_name: str, args, kwargs, *, due) -> PendingTask:
    return PendingTask.objects.create(task=task_name, args=list(args), kwargs=dict(kwargs or {}), due=due)


def task_enqueue(task, args=(), kwargs=None, *, countdown: float | None = None, sweep: str) -> bool:
    """Publish `task`; False (logged, naming the `sweep` that will re-queue it) when the broker is down.

    A countdown beyond MAX_BROKER_COUNTDOWN is a pending-task row due then (True)."""
    if countdown and countdown > MAX_BROKER_COUNTDOWN:
        _pending_add(task.name, args, kwargs, due=timezone.now() + timedelta(seconds=countdown))
        return True
    error = _publish(task, args, kwargs, countdown)
    if error is not None:
        log.warning("Could not queue %s%r (%s); %s will pick it up", task.name, tuple(args), error, sweep)
        return False
    return True


def task_enqueue_on_commit(task, args=(), kwargs=None, *, countdown: float | None = None,
                           sweep: str | None = None) -> None:
    """Durably enqueue `task` with the current transaction (autocommit: at once).

    Side effects: a pending-task row now, in the transaction; on commit the publish, which deletes the
    row, or leaves it to pending_tasks_redrive when the broker is down. `sweep` names a further net, for
    the log only."""
    now = timezone.now()
    if countdown and countdown > MAX_BROKER_COUNTDOWN:
        _pending_add(task.name, args, kwargs, due=now + timedelta(seconds=countdown))
        return
    row = _pending_add(task.name, args, kwargs, due=now + PUBLISH_GRACE + timedelta(seconds=countdown or 0))
    transaction.on_commit(partial(_publish_pending, task, row.pk, tuple(args), kwargs, countdown, sweep))


def _publish_pending(task, pk: int, args, kwargs, countdown, sweep) -> None:
    error = _publish(task, args, kwargs, countdown)
    if error is not None:
        also = f" ({sweep} too)" if sweep else ""
        log.warning("Could not queue %s%r (%s); pending task %s will be redriven%s", task.name, args, error,
                    pk, also)
        return
    try:
        PendingTask.objects.filter(pk=pk).delete()
    except DatabaseError as exc:
        # Published all the same: the redrive publishes it a second time, which idempotent tasks absorb.
        log.warning("Could not delete pending task %s after publishing it (%s)", pk, exc)


def pending_tasks_redrive(*, now=None, limit: int = REDRIVE_BATCH) -> dict[str, int]:
    """Publish the pending tasks that are due (their broker was down, or their delay is over).

    Each row is claimed with a conditional UPDATE of `due` (two redrives never publish one row at once;
    a redrive that dies leaves it for CLAIM_LEASE), published, then deleted. The first broker error ends
    the run: the rest wait for the next one. No transaction is held across a publish.
    Side effects: publishes Celery messages."""
    now = now or timezone.now()
    outcome = {"published": 0, "failed": 0}
    due = PendingTask.objects.filter(due__lte=now).order_by("due", "pk")
    for pk, name, args, kwargs, was_due in due.values_list("pk", "task", "args", "kwargs", "due")[:limit]:
        claimed = PendingTask.objects.filter(pk=pk, due=was_due).update(
            due=now + CLAIM_LEASE, attempts=F("attempts") + 1
        )
        if not claimed:
            continue
        error = _publish_by_name(name, args, kwargs)
        if error is not None:
            PendingTask.objects.filter(pk=pk).update(due=now, last_error=error[:1000])
            outcome["failed"] += 1
            log.warning("Redrive: could not queue %s%r (%s); next run retries", name, tuple(args), error)
            break
        PendingTask.objects.filter(pk=pk).delete()
        outcome["published"] += 1
    if outcome["published"]:
        log.info("Redrive: queued %s pending task(s)", outcome["published"])
    return outcome


def _publish_by_name(name: str, args, kwargs) -> str | None:
    task = current_app.tasks.get(name)
    if task is not None:
        return _publish(task, args, kwargs, None)
    try:  # not imported in this process: by name, routed like any other (settings: CELERY_TASK_ROUTES)
        current_app.send_task(name, args=list(args), kwargs=dict(kwargs or {}))
    except BROKER_ERRORS as exc:
        return str(exc) or exc.__class__.__name__
    return None


def retry_policy(*exceptions: type[BaseException], backoff: int, backoff_max: int = MAX_BROKER_COUNTDOWN,
                 max_retries: int = 5) -> dict:
    """A task's retries of transient failures (`@shared_task(**retry_policy(StoreError, …))`): exponential
    backoff from `backoff` seconds, jittered, capped at `backoff_max`, at most `max_retries` times. Only
    those exceptions retry; anything else is a bug or bad content, which retrying would not fix.

    The cap stays within MAX_BROKER_COUNTDOWN: a retry is a broker countdown, held by a worker, and one
    held past the visibility timeout would be handed to a second worker."""
    if backoff_max > MAX_BROKER_COUNTDOWN:
        raise ValueError(f"backoff_max {backoff_max} s is beyond the broker's {MAX_BROKER_COUNTDOWN} s")
    return {
        "autoretry_for": exceptions,
        "retry_backoff": backoff,
        "retry_backoff_max": backoff_max,
        "retry_jitter": True,
        "max_retries": max_retries,
    }
