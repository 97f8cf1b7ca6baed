"""A Celery worker killed (SIGKILL) in the middle of processing an upload: the work completes once, within
a minute or two, on another worker.

Tasks are acknowledged late and rejected (given back) when their pool process dies
(config/settings: CELERY_TASK_ACKS_LATE, CELERY_TASK_REJECT_ON_WORKER_LOST). Two ways a worker dies:

- the whole worker (its host, `kill -9`): the broker keeps the message of the unfinished task as
  unacknowledged and hands it out again once its visibility timeout (90 s, production's setting, which
  the fault stack keeps) has passed; any other worker's restore scan (every 5 s) does it;
- a pool child of a prefork worker (the OOM killer): the parent sees it die and gives the message back at
  once, so the task runs again in seconds.

Processing claims nothing but the row's `processing` state and writes derivatives under keys derived
from the original, so running again, or twice, makes the same objects and one outcome: no duplicate row,
object or state change.
"""
import json
import os
import signal
import time

import pytest

from apps.uploads.tests.upload_helpers import png_bytes
from tests.faults.conftest import record
from tests.faults.servers import wait_until

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

TASK = "apps.uploads.processing.tasks.image_process"


def _unacked(broker) -> list[tuple[str, str]]:
    """(task name, args) of every message the broker handed out and has not seen acknowledged."""
    messages = [json.loads(raw)[0] for raw in broker.hvals("unacked")]
    return [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages]


def _image(stack, image_id):
    rows = stack.pg.query("SELECT status, sizes, key, modified FROM uploads_image WHERE id = %s", (image_id,))
    return rows[0] if rows else None


def _image_held_mid_task(stack, first, name: str) -> int:
    """Finalize an image whose processing then hangs reading the original (the worker is mid-task)."""
    stack.worker_store.hold()  # the worker's first store request (reading the original) will hang
    upload_id = stack.upload(thing_id=stack.seed["thing_id"], filename=name, data=png_bytes(size=(640, 480)))
    finalized = stack.post(f"/files/{upload_id}/finalize")
    assert finalized.status_code == 200, finalized.text
    assert stack.worker_store.held.wait(20), first.output()[-2000:]
    return finalized.json()["id"]


def test_an_image_whose_worker_was_killed_mid_task_is_processed_once_by_another_worker_in_two_minutes(
    healthy, workers, s3
):
    from django.conf import settings

    stack = healthy
    thing_id = stack.seed["thing_id"]
    first = workers()
    image_id = _image_held_mid_task(stack, first, "killed-mid-task.png")
    second = workers()  # another worker, running all along (its store requests wait behind the hold too)
    first.kill()
    killed_at = time.monotonic()
    stack.worker_store.release()
    broker = stack.redis.client()
    task = (TASK, f"({image_id},)")
    # Not lost: the broker holds the message as unacknowledged.
    assert _unacked(broker).count(task) == 1
    assert _image(stack, image_id)[0] == "processing"

    wait_until(lambda: _image(stack, image_id)[0] == "live", timeout=180,
               what=lambda: f"image {image_id} live; worker log:\n{second.output()[-3000:]}")
    recovered = time.monotonic() - killed_at
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert recovered <= 120, recovered  # "within a minute or two": the visibility timeout and one scan
    status, sizes, key, modified = _image(stack, image_id)
    assert stack.pg.query("SELECT count(*) FROM uploads_image WHERE thing_id = %s AND name = %s",
                          (thing_id, "killed-mid-task.png")) == [(1,)]
    size_keys = [entry["key"] for entry in sizes]
    assert len(size_keys) == len(set(size_keys)) >= 6
    stored = s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=key)["Contents"]
    assert sorted(obj["Key"] for obj in stored) == sorted([key, *size_keys])
    wait_until(lambda: task not in _unacked(broker), timeout=10, what="the redelivered message acknowledged")

    # A duplicate delivery (the sweep and the broker both re-queued it, say) changes nothing.
    stack.celery().send_task(TASK, args=[image_id])
    wait_until(lambda: "'skipped'" in second.output(), timeout=20, what="the duplicate task skipped")
    assert _image(stack, image_id) == (status, sizes, key, modified)
    record(
        "worker killed mid-task (SIGKILL of the whole worker)",
        visibility_timeout_s=visibility,
        recovered_after_s=round(recovered, 1),
        image_rows=1,
        derivative_objects=len(size_keys),
        duplicate_rows_or_objects=0,
        duplicate_delivery_outcome="skipped",
    )


def test_an_image_whose_pool_process_was_killed_mid_task_runs_again_within_seconds(healthy, workers):
    stack = healthy
    worker = workers(pool="prefork", concurrency=1)
    image_id = _image_held_mid_task(stack, worker, "child-killed-mid-task.png")
    (child,) = worker.children()
    os.kill(child, signal.SIGKILL)  # as the OOM killer does; the worker's parent process lives on
    killed_at = time.monotonic()
    stack.worker_store.release()
    wait_until(lambda: _image(stack, image_id)[0] == "live", timeout=60,
               what=lambda: f"image {image_id} live; worker log:\n{worker.output()[-3000:]}")
    recovered = time.monotonic() - killed_at
    assert recovered < 30, recovered
    assert "WorkerLostError" in worker.output()
    assert stack.pg.query("SELECT count(*) FROM uploads_image WHERE name = %s",
                          ("child-killed-mid-task.png",)) == [(1,)]
    record("worker pool process killed mid-task (OOM-style)", recovered_after_s=round(recovered, 1),
           image_rows=1)
