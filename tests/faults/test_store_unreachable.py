"""The object store unreachable when an upload is finalized (the bytes had arrived before).

Finalize asks the store (HEAD) before it changes any row, so an unreachable store answers 503
STORE_UNAVAILABLE with `Retry-After: 30`, and the upload stays pending with nothing created; the
same finalize succeeds once the store is back. The service's own delayed check (upload_verify) does
not fail the upload either: its task retries the store error with backoff.
"""
import re

import pytest

from apps.uploads.tests.upload_helpers import stl_bytes
from tests.faults.conftest import record
from tests.faults.servers import wait_until

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

UNAVAILABLE = {
    "error": "The file store cannot be reached; the upload is still pending, finalize it later.",
    "code": 503,
    "type": "STORE_UNAVAILABLE",
}


def _upload_state(stack, upload_id):
    return stack.pg.query("SELECT status, file_id FROM uploads_upload WHERE id = %s", (upload_id,))[0]


def _files_named(stack, name):
    return stack.pg.query("SELECT id, status FROM uploads_thingfile WHERE name = %s", (name,))


def test_finalize_answers_503_while_the_store_is_unreachable_and_succeeds_once_it_is_back(healthy, workers):
    stack = healthy
    thing_id = stack.seed["thing_id"]
    name = "store-was-down.stl"
    upload_id = stack.upload(thing_id=thing_id, filename=name, data=stl_bytes())
    file_count = stack.get(f"/things/{thing_id}").json()["file_count"]

    stack.web_store.cut()
    stack.worker_store.cut()
    attempts = [stack.post(f"/files/{upload_id}/finalize") for _ in range(2)]
    for response in attempts:
        assert response.status_code == 503, response.text
        assert response.json() == UNAVAILABLE
        assert response.headers["Retry-After"] == "30"
        assert response.headers["X-Error"] == UNAVAILABLE["error"]
    assert _upload_state(stack, upload_id) == ("pending", None)  # nothing half-created
    assert _files_named(stack, name) == []
    assert stack.get(f"/things/{thing_id}").json()["file_count"] == file_count

    # The automatic check while the store is down: the task retries later, the upload stays pending.
    worker = workers()
    stack.celery().send_task("apps.uploads.tasks.upload_verify", args=[upload_id])
    wait_until(lambda: re.search(r"upload_verify\[[^\]]+\] retry: Retry in \d+", worker.output()), timeout=30,
               what=lambda: f"a retry of upload_verify; worker log:\n{worker.output()[-2000:]}")
    assert _upload_state(stack, upload_id) == ("pending", None)

    stack.web_store.restore()
    stack.worker_store.restore()
    finalized = stack.post(f"/files/{upload_id}/finalize")
    assert finalized.status_code == 200, finalized.text
    file_id = finalized.json()["id"]
    assert finalized.json() == {"id": file_id, "name": name, "url": f"{stack.web.url}/files/{file_id}"}
    assert stack.post(f"/files/{upload_id}/finalize").json() == finalized.json()  # idempotent
    assert _upload_state(stack, upload_id) == ("finalized", file_id)
    wait_until(lambda: _files_named(stack, name) == [(file_id, "live")], timeout=30,
               what=lambda: f"file {file_id} processed; worker log:\n{worker.output()[-2000:]}")
    assert stack.get(f"/things/{thing_id}").json()["file_count"] == file_count + 1
    record(
        "store unreachable at finalize",
        finalize_503s=len(attempts),
        verify_task_retried=1,
        rows_half_created=0,
        finalize_after_return=finalized.status_code,
        files_created=1,
    )
