"""The object store unreachable: finalize answers 503 STORE_UNAVAILABLE and changes nothing; the
automatic check raises for its task's retry instead of failing the upload (docs/reliability.md).

The store's address points at a loopback port where nothing listens, so boto3 really fails to connect
(tests/faults/test_store_unreachable.py does the same under gunicorn with a real outage).
"""
import pytest

from apps.things.tests.factories import ThingFactory
from apps.uploads import store
from apps.uploads.flow import services, tasks
from apps.uploads.models import ThingFile, Upload
from apps.uploads.tests.upload_helpers import stl_bytes, upload_started

pytestmark = pytest.mark.django_db

UNAVAILABLE = {
    "error": "The file store cannot be reached; the upload is still pending, finalize it later.",
    "code": 503,
    "type": "STORE_UNAVAILABLE",
}


@pytest.fixture
def arrived(s3, user):
    thing = ThingFactory(creator=user)
    upload = upload_started(owner=user, target_id=thing.pk, filename="bracket.stl")
    store.put(upload.key, stl_bytes())
    return upload


@pytest.fixture
def store_down(settings):
    settings.S3_ENDPOINT_URL = "http://127.0.0.1:1"  # nothing listens on port 1


def test_finalize_answers_503_and_leaves_the_upload_pending(api, arrived, store_down):
    response = api.post(f"/files/{arrived.pk}/finalize")
    assert response.status_code == 503
    assert response.json() == UNAVAILABLE
    assert response["Retry-After"] == "30"
    assert response["X-Error"] == UNAVAILABLE["error"]
    arrived.refresh_from_db()
    assert (arrived.status, arrived.file_id, arrived.error) == (Upload.Status.PENDING, None, "")
    assert not ThingFile.objects.exists()


def test_finalize_succeeds_once_the_store_is_back(api, arrived, settings, s3_server):
    settings.S3_ENDPOINT_URL = "http://127.0.0.1:1"
    assert api.post(f"/files/{arrived.pk}/finalize").status_code == 503
    settings.S3_ENDPOINT_URL = s3_server
    response = api.post(f"/files/{arrived.pk}/finalize")
    assert response.status_code == 200
    assert response.json()["id"] == ThingFile.objects.get().pk


def test_the_automatic_check_raises_for_a_retry_and_does_not_fail_the_upload(arrived, store_down):
    with pytest.raises(store.StoreError):
        services.upload_verify(upload_id=arrived.pk)
    arrived.refresh_from_db()
    assert arrived.status == Upload.Status.PENDING


def test_the_check_task_retries_store_errors_with_backoff():
    assert store.StoreError in tasks.upload_verify.autoretry_for
    assert tasks.upload_verify.retry_backoff and tasks.upload_verify.max_retries


# --- A hung store (issue 14, finding 5): a request waits seconds, not gunicorn's whole 30 s -----------

@pytest.fixture
def black_hole(settings):
    """A store address that accepts connections and never answers (the kernel completes the handshake
    into the listen backlog; nothing ever reads or writes)."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    settings.S3_ENDPOINT_URL = f"http://127.0.0.1:{sock.getsockname()[1]}"
    yield sock
    sock.close()


def test_a_hung_store_ends_a_finalize_in_seconds_with_a_clear_503(api, arrived, black_hole):
    import time

    started = time.monotonic()
    response = api.post(f"/files/{arrived.pk}/finalize")
    elapsed = time.monotonic() - started

    assert elapsed < 10, elapsed  # was 30 s × 4 attempts of boto3's read timeout
    assert response.status_code == 503
    assert response.json() == UNAVAILABLE
    assert response["Retry-After"] == "30"
    arrived.refresh_from_db()
    assert arrived.status == Upload.Status.PENDING


def test_any_store_call_in_a_request_is_bounded_and_a_503(black_hole):
    import time

    from apps.core.pipeline.handlers import service_unavailable_from

    started = time.monotonic()
    with pytest.raises(store.StoreError) as raised:
        store.head("uploads/1/x/y.stl")
    assert time.monotonic() - started < store.REQUEST_CONNECT_TIMEOUT_SECONDS + store.REQUEST_READ_TIMEOUT_SECONDS + 2
    unavailable = service_unavailable_from(raised.value)  # what every API view and page answers: 503
    assert unavailable is not None and unavailable.error_type == "STORE_UNAVAILABLE"
    assert unavailable.message == "The file store cannot be reached; try again shortly."


def test_requests_get_short_timeouts_and_one_attempt_and_worker_tasks_patient_ones(monkeypatch):
    request_config = store.client().meta.config
    assert (request_config.connect_timeout, request_config.read_timeout) == (2, 4)
    assert request_config.retries["total_max_attempts"] == 1
    assert request_config.read_timeout * request_config.retries["total_max_attempts"] < 30  # gunicorn's timeout

    monkeypatch.setattr(store, "_in_worker_task", lambda: True)
    task_config = store.client().meta.config
    assert task_config.read_timeout == 30 and task_config.retries["total_max_attempts"] == 4


def test_an_eager_task_inside_a_request_keeps_the_request_s_timeouts():
    from celery import shared_task

    @shared_task
    def probe():
        return store._in_worker_task()

    assert probe.delay().get() is False  # CELERY_TASK_ALWAYS_EAGER in tests, as inside a request
