"""Finding 8: processing has a time limit and a queue of its own.

- A mesh that takes longer than the soft limit fails as too complex (a clear `processing_error`), and
  the worker goes on with the next file; one that ignores the soft limit is killed at the hard limit and
  failed by the worker's parent process. Neither stays `processing`.
- Webhook work runs on its own queue and worker: a processing worker stuck mid-task delays it not at all.

The workers are prefork (the pool that enforces time limits) with the limits lowered through the
environment (PROCESSING_TIME_LIMIT_SECONDS, PROCESSING_HARD_TIME_LIMIT_SECONDS), so an ordinary mesh of
10 MB is "too complex". The worker's limits apply, whatever the web process wrote into the message.
"""
import functools
import time

import numpy as np
import pytest

from apps.uploads.tests.processing.meshes import ascii_stl, cube_triangles
from apps.uploads.tests.upload_helpers import png_bytes
from tests.faults.conftest import record
from tests.faults.servers import wait_until

pytestmark = [pytest.mark.faults, pytest.mark.django_db]


@functools.cache
def _heavy_stl() -> bytes:
    """An ASCII STL of 48,000 triangles (about 10 MB): a few seconds of processing."""
    cubes = [cube_triangles(1.0, origin=(i % 100 * 2.0, i // 100 * 2.0, 0.0)) for i in range(4000)]
    return ascii_stl(np.concatenate(cubes))


def _file(stack, file_id):
    return stack.pg.query("SELECT status, processing_error FROM uploads_thingfile WHERE id = %s", (file_id,))[0]


def _finalized_file(stack, name: str, data: bytes) -> int:
    upload_id = stack.upload(thing_id=stack.seed["thing_id"], filename=name, data=data)
    finalized = stack.post(f"/files/{upload_id}/finalize")
    assert finalized.status_code == 200, finalized.text
    return finalized.json()["id"]


def test_a_mesh_over_the_soft_time_limit_fails_as_too_complex_and_the_worker_goes_on(healthy, workers):
    stack = healthy
    worker = workers(pool="prefork", queues="processing", env={
        "PROCESSING_TIME_LIMIT_SECONDS": "1", "PROCESSING_HARD_TIME_LIMIT_SECONDS": "30"})
    started = time.monotonic()
    heavy = _finalized_file(stack, "too-complex.stl", _heavy_stl())
    wait_until(lambda: _file(stack, heavy)[0] == "failed", timeout=60,
               what=lambda: f"file {heavy} failed; worker log:\n{worker.output()[-3000:]}")
    failed_after = time.monotonic() - started  # from before the upload: the 10 MB upload included
    assert _file(stack, heavy) == (
        "failed", "The model is too complex to process within the time limit (1 s).")
    assert "SoftTimeLimitExceeded" in worker.output() or "Soft time limit" in worker.output()

    light = _finalized_file(stack, "notes.txt", b"print in PETG")  # the worker goes on (no mesh: instant)
    wait_until(lambda: _file(stack, light)[0] == "live", timeout=30,
               what=lambda: f"file {light} live; worker log:\n{worker.output()[-3000:]}")
    record("processing soft time limit", limit_s=1, failed_as_too_complex_after_s=round(failed_after, 1),
           next_file="live")


def test_a_mesh_killed_at_the_hard_time_limit_is_failed_by_the_worker(healthy, workers):
    stack = healthy
    # Runs that ignore the soft limit, as one stuck in native code would (tests/faults/stack_settings.py).
    worker = workers(pool="prefork", queues="processing", env={
        "PROCESSING_TIME_LIMIT_SECONDS": "0.5", "PROCESSING_HARD_TIME_LIMIT_SECONDS": "1",
        "FAULTS_WORKER_IGNORES_SOFT_LIMIT": "1"})
    heavy = _finalized_file(stack, "killed-at-hard-limit.stl", _heavy_stl())
    wait_until(lambda: _file(stack, heavy)[0] == "failed", timeout=60,
               what=lambda: f"file {heavy} failed; worker log:\n{worker.output()[-3000:]}")
    assert _file(stack, heavy) == (
        "failed", "The model is too complex to process within the time limit (1 s).")
    assert "Hard time limit" in worker.output()
    light = _finalized_file(stack, "after-the-kill.txt", b"print in PETG")  # a new pool process takes over
    wait_until(lambda: _file(stack, light)[0] == "live", timeout=30,
               what=lambda: f"file {light} live; worker log:\n{worker.output()[-3000:]}")
    record("processing hard time limit", limit_s=1, outcome="failed as too complex", next_file="live")


def test_webhook_work_runs_at_once_while_the_processing_worker_is_stuck(healthy, workers):
    stack = healthy
    stack.worker_store.hold()  # processing will hang reading its original
    processing = workers(queues="processing")
    default = workers(queues="webhooks,celery")
    upload_id = stack.upload(thing_id=stack.seed["thing_id"], filename="slow.png", data=png_bytes())
    assert stack.post(f"/files/{upload_id}/finalize").status_code == 200
    assert stack.worker_store.held.wait(20), processing.output()[-2000:]

    sent = time.monotonic()
    stack.celery().send_task("apps.webhooks.tasks.webhooks_dispatch_due")
    ran = "apps.webhooks.tasks.webhooks_dispatch_due["  # a log line of a run (the banner lists names too)
    wait_until(lambda: ran in default.output() and "succeeded" in default.output(),
               timeout=30, what=lambda: f"the webhook task run; log:\n{default.output()[-2000:]}")
    waited = time.monotonic() - sent
    assert waited < 10, waited
    assert ran not in processing.output()
    stack.worker_store.release()
    record("queues", webhook_task_ran_after_s=round(waited, 2), while_processing="stuck mid-task")
