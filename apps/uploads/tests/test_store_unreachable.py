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
