"""The service's own checks of uploads (spec §3): upload_verify after a delay, the periodic sweep."""

from datetime import timedelta

import pytest
from celery.exceptions import Retry
from django.conf import settings as django_settings
from django.utils import timezone

from apps.core.models import PendingTask
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads import store
from apps.uploads.flow import services, tasks
from apps.uploads.models import ThingFile, Upload
from apps.uploads.tests.upload_helpers import stl_bytes, upload_started

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user)


@pytest.fixture
def rescheduled(monkeypatch):
    """rescheduled() → the checks a verify scheduled, (args, kwargs, countdown): those published at once,
    and those minutes away, which wait as pending-task rows (apps/core/broker/enqueue.py)."""
    calls = []
    monkeypatch.setattr(
        tasks.upload_verify,
        "apply_async",
        lambda args, kwargs, countdown: calls.append((args, kwargs, countdown)),
    )

    def scheduled():
        rows = PendingTask.objects.filter(task=tasks.upload_verify.name, kwargs__attempt__gte=1).order_by("pk")
        return calls + [
            (tuple(row.args), row.kwargs, round((row.due - row.created).total_seconds())) for row in rows
        ]

    return scheduled


def expire(upload, ago=timedelta(seconds=1)):
    Upload.objects.filter(pk=upload.pk).update(expires_at=timezone.now() - ago)


def test_verify_finalizes_an_arrived_upload_as_its_owner_would(user, thing, s3, rescheduled):
    upload = upload_started(owner=user, target_id=thing.pk)
    store.put(upload.key, stl_bytes())
    assert tasks.upload_verify.apply((upload.pk,)).get() == "finalized"
    file = ThingFile.objects.get()
    assert Upload.objects.get(pk=upload.pk).file == file
    assert Thing.objects.get(pk=thing.pk).file_count == 1
    # Twice is harmless.
    assert tasks.upload_verify.apply((upload.pk,)).get() == "finalized"
    assert ThingFile.objects.count() == 1 and rescheduled() == []


def test_verify_expires_an_upload_that_never_arrived(user, thing, s3, rescheduled):
    upload = upload_started(owner=user, target_id=thing.pk)
    expire(upload)
    assert tasks.upload_verify.apply((upload.pk,)).get() == "expired"
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.EXPIRED
    assert rescheduled() == []


def test_verify_checks_again_later_while_the_form_is_valid(user, thing, s3, rescheduled):
    upload = upload_started(owner=user, target_id=thing.pk)
    assert tasks.upload_verify.apply((upload.pk,)).get() == "waiting"
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.PENDING
    delay = django_settings.UPLOAD_VERIFY_DELAY_SECONDS
    assert rescheduled() == [((upload.pk,), {"attempt": 1}, delay * 2)]


def test_verify_backs_off_and_the_last_check_is_just_after_expiry(user, thing, s3):
    upload = upload_started(owner=user, target_id=thing.pk)
    delay = django_settings.UPLOAD_VERIFY_DELAY_SECONDS
    until_expiry = (upload.expires_at - timezone.now()).total_seconds()
    countdowns = [services.upload_verify_next_countdown(upload_id=upload.pk, attempt=n) for n in range(1, 5)]
    assert countdowns[:2] == [delay * 2, delay * 4]
    last = countdowns[2]
    assert last is not None and until_expiry < last <= until_expiry + 6
    assert countdowns[3] is None
    # Close to expiry, the next check is at expiry rather than after it.
    Upload.objects.filter(pk=upload.pk).update(expires_at=timezone.now() + timedelta(seconds=60))
    at_expiry = services.upload_verify_next_countdown(upload_id=upload.pk, attempt=1)
    assert at_expiry is not None and 60 <= at_expiry <= 65


def test_verify_of_a_settled_or_unknown_upload_does_nothing(user, thing, s3, rescheduled):
    assert tasks.upload_verify.apply((999999,)).get() == "gone"
    upload = upload_started(owner=user, target_id=thing.pk)
    store.put(upload.key, b"")
    assert tasks.upload_verify.apply((upload.pk,)).get() == "failed"
    assert tasks.upload_verify.apply((upload.pk,)).get() == "failed"
    assert rescheduled() == []


def test_verify_of_an_upload_whose_thing_was_deleted_fails_it(user, thing, s3, rescheduled):
    upload = upload_started(owner=user, target_id=thing.pk)
    store.put(upload.key, stl_bytes())
    thing.delete()
    assert tasks.upload_verify.apply((upload.pk,)).get() == "failed"
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FAILED


def test_a_store_outage_is_retried_with_backoff(user, thing, s3, settings):
    upload = upload_started(owner=user, target_id=thing.pk)
    settings.S3_ENDPOINT_URL = "http://127.0.0.1:1"  # nothing listens there: a real connection error
    with pytest.raises(Retry) as retry:
        tasks.upload_verify.apply((upload.pk,))
    assert isinstance(retry.value.exc, store.StoreError)
    assert 0 <= retry.value.when <= 2  # the first of 2, 4, 8 … 60 s, jittered
    assert tasks.upload_verify.max_retries == 12
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.PENDING


def test_the_sweep_settles_overdue_uploads_and_deletes_stray_objects(
    user, thing, s3, django_capture_on_commit_callbacks
):
    arrived = upload_started(owner=user, target_id=thing.pk, filename="arrived.stl")
    store.put(arrived.key, stl_bytes())
    never = upload_started(owner=user, target_id=thing.pk, filename="never.stl")
    upload_started(owner=user, target_id=thing.pk, filename="fresh.stl")
    # A failed upload whose form was used again before it expired: the bytes are a stray object.
    failed = upload_started(owner=user, target_id=thing.pk, filename="failed.stl")
    Upload.objects.filter(pk=failed.pk).update(status=Upload.Status.FAILED, error="UPLOAD_EMPTY: empty")
    store.put(failed.key, b"again")
    for upload in (arrived, never, failed):
        expire(upload, ago=timedelta(minutes=2))

    with django_capture_on_commit_callbacks(execute=True):
        outcome = tasks.uploads_sweep_expired.delay().get()

    # Deleted: the expired one's and the stray, and the finalized one's policy key (bytes posted with its
    # form after finalize are never served: the file has its frozen copy; issue 14, finding 4).
    assert outcome == {"finalized": 1, "expired": 1, "deleted": 3}
    statuses = dict(Upload.objects.values_list("filename", "status"))
    assert statuses == {
        "arrived.stl": "finalized",
        "never.stl": "expired",
        "fresh.stl": "pending",
        "failed.stl": "failed",
    }
    assert store.head(failed.key) is None
    assert ThingFile.objects.get().name == "arrived.stl"
    assert Thing.objects.get(pk=thing.pk).file_count == 1
    # Again: nothing new to settle; the recent closed ones are deleted again (cheap, idempotent).
    assert tasks.uploads_sweep_expired.delay().get() == {"deleted": 3}


def test_the_sweep_leaves_long_closed_uploads_alone(user, thing, s3):
    old = upload_started(owner=user, target_id=thing.pk)
    Upload.objects.filter(pk=old.pk).update(status=Upload.Status.EXPIRED)
    expire(old, ago=timedelta(days=1))
    assert tasks.uploads_sweep_expired.delay().get() == {}


def test_the_sweep_runs_every_ten_minutes():
    entry = django_settings.CELERY_BEAT_SCHEDULE["uploads-sweep-expired"]
    assert entry == {"task": "apps.uploads.tasks.uploads_sweep_expired", "schedule": 600.0}
    assert tasks.uploads_sweep_expired.name == entry["task"]
