"""The pending-task outbox (apps/core/broker/enqueue.py): work whose publish failed is published by the redrive
as soon as the broker answers again; long delays wait as rows; nothing is published for a rollback.

The broker is really unreachable where a test says so: the Celery app publishes (not eager) to a port
where nothing listens, as when Redis is down; then it is back (eager again, as in the other tests).
"""
from datetime import timedelta

import pytest
from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.core.broker import enqueue
from apps.core.models import PendingTask
from tests.support.api import UnreachableBroker

pytestmark = pytest.mark.django_db

RAN: list[tuple] = []


@shared_task(name="apps.core.tests.test_enqueue.record")
def record(value, *, tag="") -> None:
    RAN.append((value, tag))


@pytest.fixture
def broker():
    RAN.clear()
    broker = UnreachableBroker()
    yield broker
    broker.up()


def test_a_durable_enqueue_publishes_on_commit_and_leaves_no_row(broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            enqueue.task_enqueue_on_commit(record, (1,), {"tag": "a"})
            assert PendingTask.objects.filter(task=record.name, args=[1], kwargs={"tag": "a"}).exists()
            assert RAN == []  # not before the commit
    assert RAN == [(1, "a")]
    assert not PendingTask.objects.exists()


def test_a_rolled_back_enqueue_leaves_neither_row_nor_message(broker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            enqueue.task_enqueue_on_commit(record, (2,))
            raise RuntimeError("the change failed")
    assert RAN == [] and not PendingTask.objects.exists()


def test_work_whose_broker_was_down_is_published_by_the_redrive_once_the_broker_answers(
    broker, django_capture_on_commit_callbacks, caplog
):
    broker.down()
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            enqueue.task_enqueue_on_commit(record, (3,), sweep="a sweep")
    row = PendingTask.objects.get()  # the request went through; the work waits in its row
    assert "will be redriven" in caplog.text and RAN == []

    # Still down: the redrive fails, keeps the row and makes it due again at once.
    later = timezone.now() + enqueue.PUBLISH_GRACE
    assert enqueue.pending_tasks_redrive(now=later) == {"published": 0, "failed": 1}
    row.refresh_from_db()
    assert (row.due, row.attempts) == (later, 1) and row.last_error

    broker.up()
    assert enqueue.pending_tasks_redrive(now=later) == {"published": 1, "failed": 0}
    assert RAN == [(3, "")]
    assert not PendingTask.objects.exists()
    assert enqueue.pending_tasks_redrive(now=later) == {"published": 0, "failed": 0}  # once


def test_a_row_is_left_to_its_own_publish_for_the_grace_period(broker):
    broker.down()
    enqueue.task_enqueue_on_commit(record, (4,))  # autocommit: published (here: failed) at once
    assert enqueue.pending_tasks_redrive(now=timezone.now()) == {"published": 0, "failed": 0}


def test_a_claimed_row_is_not_published_by_a_second_redrive_until_its_lease_ends(broker):
    broker.down()
    enqueue.task_enqueue_on_commit(record, (5,))
    now = timezone.now() + enqueue.PUBLISH_GRACE
    row = PendingTask.objects.get()
    # A redrive claimed it (moved `due` by the lease) and died before publishing.
    assert PendingTask.objects.filter(pk=row.pk, due=row.due).update(due=now + enqueue.CLAIM_LEASE) == 1
    broker.up()
    assert enqueue.pending_tasks_redrive(now=now) == {"published": 0, "failed": 0}
    assert enqueue.pending_tasks_redrive(now=now + enqueue.CLAIM_LEASE) == {"published": 1, "failed": 0}
    assert RAN == [(5, "")]


def test_a_countdown_longer_than_a_worker_may_hold_a_message_waits_as_a_row_until_due(
    broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        enqueue.task_enqueue_on_commit(record, (6,), countdown=300)
        assert enqueue.task_enqueue(record, (7,), countdown=enqueue.MAX_BROKER_COUNTDOWN + 1, sweep="s") is True
    assert RAN == [] and PendingTask.objects.count() == 2
    now = timezone.now()
    assert enqueue.pending_tasks_redrive(now=now) == {"published": 0, "failed": 0}
    assert enqueue.pending_tasks_redrive(now=now + timedelta(seconds=301)) == {"published": 2, "failed": 0}
    assert sorted(RAN) == [(6, ""), (7, "")]


def test_the_redrive_runs_every_few_seconds_on_the_default_queue():
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["core-pending-tasks-redrive"]
    assert entry["task"] == "apps.core.tasks.pending_tasks_redrive"
    assert entry["schedule"] <= 5
    assert app.amqp.router.route({}, entry["task"])["queue"].name == "celery"


@pytest.mark.parametrize("name, queue", [
    ("apps.uploads.processing.tasks.file_process", "processing"),
    ("apps.uploads.processing.tasks.image_process", "processing"),
    ("apps.uploads.package_tasks.package_build", "processing"),
    ("apps.webhooks.tasks.deliver", "webhooks"),
    ("apps.webhooks.tasks.webhooks_dispatch_due", "webhooks"),
    ("apps.uploads.tasks.upload_verify", "celery"),
    ("apps.accounts.tasks.send_verification_email", "celery"),
])
def test_slow_processing_and_webhooks_have_queues_of_their_own(name, queue):
    from config.celery import app

    assert app.amqp.router.route({}, name)["queue"].name == queue


def test_a_dead_workers_message_comes_back_within_two_minutes_and_no_live_one_is_handed_out_twice():
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert settings.CELERY_TASK_ACKS_LATE and settings.CELERY_TASK_REJECT_ON_WORKER_LOST
    assert options["visibility_timeout"] + options["unacked_restore_interval"] * options[
        "unacked_restore_throttle"] <= 120
    # Longer than the longest run (processing's hard limit) and the longest countdown a worker holds.
    assert options["visibility_timeout"] > settings.PROCESSING_HARD_TIME_LIMIT_SECONDS
    assert options["visibility_timeout"] > enqueue.MAX_BROKER_COUNTDOWN


def test_a_retry_policy_never_backs_off_beyond_what_a_worker_may_hold():
    with pytest.raises(ValueError):
        enqueue.retry_policy(OSError, backoff=30, backoff_max=900)
    assert enqueue.retry_policy(OSError, backoff=2)["retry_backoff_max"] == enqueue.MAX_BROKER_COUNTDOWN
