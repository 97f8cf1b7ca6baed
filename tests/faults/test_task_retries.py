"""Processing that meets a PostgreSQL outage retries with backoff and finishes seconds after the database
is back, on the same worker, with no sweep involved.

The processing tasks retry database and store outages (apps/uploads/processing/tasks.py): exponential
backoff from 2 s, full jitter, capped at 60 s, at most 12 times (about 8 minutes). The worker's
connections are replaced between tasks (Celery's Django fixup), so the first retry after the restart
finds the database.
"""
import time

import pytest

from apps.uploads.tests.upload_helpers import stl_bytes
from tests.faults.conftest import record
from tests.faults.servers import wait_until

pytestmark = [pytest.mark.faults, pytest.mark.django_db]


def _file_status(stack, file_id) -> str:
    return stack.pg.query("SELECT status FROM uploads_thingfile WHERE id = %s", (file_id,))[0][0]


def test_processing_that_meets_a_database_outage_retries_and_finishes_seconds_after_it(healthy, workers):
    stack = healthy
    upload_id = stack.upload(thing_id=stack.seed["thing_id"], filename="through-a-db-outage.stl",
                             data=stl_bytes())
    finalized = stack.post(f"/files/{upload_id}/finalize")  # no worker yet: the message waits in its queue
    assert finalized.status_code == 200, finalized.text
    file_id = finalized.json()["id"]

    stack.pg.stop("fast")
    outage_started = time.monotonic()
    worker = workers()
    wait_until(lambda: worker.output().count("Retry in") >= 2, timeout=60,
               what=lambda: f"the task retrying; worker log:\n{worker.output()[-3000:]}")
    assert "OperationalError" in worker.output()
    stack.pg.start()
    back = time.monotonic()
    wait_until(lambda: _file_status(stack, file_id) == "live", timeout=120,
               what=lambda: f"file {file_id} live; worker log:\n{worker.output()[-3000:]}")
    recovered = time.monotonic() - back
    retries = worker.output().count("Retry in")
    # At most the backoff's cap (60 s) after the restart; in practice the next retry's few seconds.
    assert recovered < 65, recovered
    assert stack.pg.query("SELECT count(*) FROM uploads_thingfile WHERE name = %s",
                          ("through-a-db-outage.stl",)) == [(1,)]
    record(
        "postgres outage under a processing task",
        outage_s=round(back - outage_started, 1),
        retries_during_outage=retries,
        live_after_restart_s=round(recovered, 1),
        failed_tasks=0,
    )
