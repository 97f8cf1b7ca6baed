"""A Celery worker killed (SIGKILL) in the middle of processing an upload: the work completes once.

Processing tasks are `acks_late` (config/settings: CELERY_TASK_ACKS_LATE), so the broker keeps the
message of a task whose worker died as unacknowledged and hands it to a worker again once the
visibility timeout has passed (an hour in production, 4 s in the fault stack's settings; the
stuck-processing sweep is the second net). Processing claims nothing but the row's `processing`
state and writes derivatives under keys derived from the original, so running again, or twice, makes
the same objects and one outcome: no duplicate row, object or state change.
"""
import json

import pytest

from apps.uploads.tests.upload_helpers import png_bytes
from tests.faults.conftest import record
from tests.faults.servers import wait_until

pytestmark = [pytest.mark.faults, pytest.mark.django_db]


def _unacked(broker) -> list[tuple[str, str]]:
    """(task name, args) of every message the broker handed out and has not seen acknowledged."""
    messages = [json.loads(raw)[0] for raw in broker.hvals("unacked")]
    return [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages]


def _image(stack, image_id):
    rows = stack.pg.query("SELECT status, sizes, key, modified FROM uploads_image WHERE id = %s", (image_id,))
    return rows[0] if rows else None


def test_an_image_whose_worker_was_killed_mid_task_is_processed_once_by_the_next_worker(healthy, workers, s3):
    from django.conf import settings

    stack = healthy
    thing_id = stack.seed["thing_id"]
    stack.worker_store.hold()  # the worker's first store request (reading the original) will hang
    first = workers()
    photo = png_bytes(size=(640, 480))
    upload_id = stack.upload(thing_id=thing_id, filename="killed-mid-task.png", data=photo)
    finalized = stack.post(f"/files/{upload_id}/finalize")
    assert finalized.status_code == 200, finalized.text
    image_id = finalized.json()["id"]

    assert stack.worker_store.held.wait(20), first.output()[-2000:]  # mid-task: downloading the original
    first.kill()
    stack.worker_store.release()
    broker = stack.redis.client()
    task = ("apps.uploads.processing.tasks.image_process", f"({image_id},)")
    # Not lost: the broker holds the message as unacknowledged (beside other reserved, countdown tasks).
    assert _unacked(broker).count(task) == 1
    assert _image(stack, image_id)[0] == "processing"

    second = workers()
    wait_until(lambda: _image(stack, image_id)[0] == "live", timeout=40,
               what=f"image {image_id} live; worker log:\n{second.output()[-3000:]}")
    status, sizes, key, modified = _image(stack, image_id)
    assert stack.pg.query("SELECT count(*) FROM uploads_image WHERE thing_id = %s AND name = %s",
                          (thing_id, "killed-mid-task.png")) == [(1,)]
    size_keys = [entry["key"] for entry in sizes]
    assert len(size_keys) == len(set(size_keys)) >= 6
    stored = s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=key)["Contents"]
    assert sorted(obj["Key"] for obj in stored) == sorted([key, *size_keys])
    wait_until(lambda: task not in _unacked(broker), timeout=10, what="the redelivered message acknowledged")

    # A duplicate delivery (the sweep and the broker both re-queued it, say) changes nothing.
    stack.celery().send_task("apps.uploads.processing.tasks.image_process", args=[image_id])
    wait_until(lambda: "'skipped'" in second.output(), timeout=20, what="the duplicate task skipped")
    assert _image(stack, image_id) == (status, sizes, key, modified)
    record(
        "worker killed mid-task",
        tasks_killed=1,
        redelivered=1,
        image_rows=1,
        derivative_objects=len(size_keys),
        duplicate_rows_or_objects=0,
        duplicate_delivery_outcome="skipped",
    )
