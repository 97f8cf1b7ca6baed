"""POST /files/{id}/finalize (spec §4.3, §4.10 step 5): the caller's pending upload becomes a file or
an image once its bytes are in the store; idempotent (docs/decisions.md: Uploads)."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error
from apps.uploads import rules, store
from apps.uploads.models import Image, ThingFile, Upload
from apps.uploads.processing import tasks as processing_tasks
from apps.uploads.tests.upload_helpers import png_bytes, stl_bytes, upload_started

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user)


@pytest.fixture
def enqueued(monkeypatch):
    """Processing tasks enqueued (by name), instead of running them: processing has its own tests."""
    calls = []
    for name in ("file_process", "image_process"):
        monkeypatch.setattr(
            getattr(processing_tasks, name), "delay", lambda pk, name=name: calls.append((name, pk))
        )
    return calls


@pytest.fixture
def arrived(s3, user, thing):
    """A pending Thing-file upload whose bytes are in the store."""
    upload = upload_started(owner=user, target_id=thing.pk, filename="bracket.stl")
    store.put(upload.key, stl_bytes())
    return upload


def finalize(client, upload, **kw):
    return client.post(f"/files/{upload.pk}/finalize", **kw)


def test_it_creates_the_file_and_answers_the_summary(
    api, arrived, thing, enqueued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = finalize(api, arrived)
    assert response.status_code == 200, response.content
    file = ThingFile.objects.get()
    assert response.json() == {
        "id": file.pk,
        "name": "bracket.stl",
        "url": f"http://testserver/files/{file.pk}",
    }
    # docs/security.md (issue 14, finding 4): the file serves a frozen copy, not the policy's key.
    frozen = Upload.objects.get(pk=arrived.pk).key
    assert frozen.startswith("stored/") and rules.policy_key_of(frozen) == arrived.key
    assert (file.thing, file.name, file.key, file.size) == (
        thing,
        "bracket.stl",
        frozen,
        len(stl_bytes()),
    )
    assert store.get_bytes(file.key) == stl_bytes() and store.head(arrived.key) is None
    assert (file.content_type, file.status) == ("model/stl", "processing")
    arrived.refresh_from_db()
    assert arrived.status == Upload.Status.FINALIZED and arrived.file == file and arrived.finalized_at
    assert arrived.size == len(stl_bytes())
    assert Thing.objects.get(pk=thing.pk).file_count == 1
    assert enqueued == [("file_process", file.pk)]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"data": "null", "content_type": "application/json"},
        {"data": "", "content_type": "application/x-www-form-urlencoded"},
        {
            "data": "bucket=thingyard&key=x&etag=%22abc%22",
            "content_type": "application/x-www-form-urlencoded",
        },
        {"data": {"bucket": "thingyard", "key": "x", "file": "ignored"}},  # multipart
        {"data": "not json {", "content_type": "text/plain"},
    ],
)
def test_any_body_is_accepted_and_ignored(api, arrived, enqueued, kw):
    assert finalize(api, arrived, **kw).status_code == 200
    assert ThingFile.objects.count() == 1


def test_a_token_in_the_query_string_works(client_for, user, arrived, enqueued):
    token = client_for(user).token.token
    from rest_framework.test import APIClient

    assert APIClient().post(f"/files/{arrived.pk}/finalize?access_token={token}").status_code == 200


def test_the_path_works_with_a_trailing_slash(api, arrived, enqueued):
    assert api.post(f"/files/{arrived.pk}/finalize/").status_code == 200


def test_finalizing_again_answers_the_same_summary(
    api, arrived, thing, enqueued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = finalize(api, arrived).json()
        second = finalize(api, arrived)
    assert second.status_code == 200
    assert second.json() == first
    assert ThingFile.objects.count() == 1
    assert Thing.objects.get(pk=thing.pk).file_count == 1
    assert len(enqueued) == 1


def test_an_image_upload_creates_an_image(api, user, thing, s3, enqueued, django_capture_on_commit_callbacks):
    upload = upload_started(
        owner=user, target_id=thing.pk, filename="photo.png", kind=Upload.Kind.THING_IMAGE
    )
    store.put(upload.key, png_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        response = finalize(api, upload)
    assert response.status_code == 200, response.content
    image = Image.objects.get()
    assert response.json() == {
        "id": image.pk,
        "name": "photo.png",
        "url": f"http://testserver/things/{thing.pk}/images/{image.pk}",
    }
    frozen = Upload.objects.get(pk=upload.pk).key
    assert frozen.startswith("stored/") and rules.policy_key_of(frozen) == upload.key
    assert (image.thing, image.key, image.size, image.status) == (
        thing,
        frozen,
        len(png_bytes()),
        "processing",
    )
    assert not ThingFile.objects.exists()
    assert Thing.objects.get(pk=thing.pk).file_count == 0
    assert enqueued == [("image_process", image.pk)]


@pytest.mark.parametrize("kind,field", [(Upload.Kind.AVATAR, "avatar"), (Upload.Kind.COVER, "cover")])
def test_an_avatar_or_cover_replaces_the_users_and_deletes_the_previous_object(
    api, user, s3, kind, field, django_capture_on_commit_callbacks
):
    old = upload_started(owner=user, target_id=user.pk, filename="old.png", kind=kind)
    store.put(old.key, png_bytes())
    assert finalize(api, old).status_code == 200
    old.refresh_from_db()  # its key is now the frozen copy's (issue 14, finding 4)
    user.refresh_from_db()
    assert getattr(user, field) == old.key and old.key.startswith("stored/")

    new = upload_started(owner=user, target_id=user.pk, filename="new.png", kind=kind)
    store.put(new.key, png_bytes(color=(0, 0, 255)))
    with django_capture_on_commit_callbacks(execute=True):
        response = finalize(api, new)
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["name"]) == (new.pk, "new.png")
    assert finalize(api, new).json() == body
    new.refresh_from_db()
    assert store.get_bytes(new.key) == png_bytes(color=(0, 0, 255))
    user.refresh_from_db()
    assert getattr(user, field) == new.key
    assert store.head(old.key) is None
    assert store.head(new.key) is not None


def test_bytes_not_arrived_are_400_and_the_upload_stays_pending(api, user, thing, s3):
    upload = upload_started(owner=user, target_id=thing.pk)
    body = assert_error(finalize(api, upload), 400, "UPLOAD_MISSING")
    assert body["error"] == "The upload has not arrived in the store yet"
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.PENDING
    # The client may retry once the bytes are there.
    store.put(upload.key, b"solid x\nendsolid x\n")
    assert finalize(api, upload).status_code == 200


def test_an_empty_object_is_400_fails_the_upload_and_is_deleted(
    api, user, thing, s3, django_capture_on_commit_callbacks
):
    upload = upload_started(owner=user, target_id=thing.pk)
    store.put(upload.key, b"")
    with django_capture_on_commit_callbacks(execute=True):
        assert_error(finalize(api, upload), 400, "UPLOAD_EMPTY")
    upload.refresh_from_db()
    assert (upload.status, upload.size) == (Upload.Status.FAILED, 0)
    assert store.head(upload.key) is None
    assert not ThingFile.objects.exists()
    # Settled for good: asking again answers the same problem.
    assert_error(finalize(api, upload), 400, "UPLOAD_EMPTY")


def test_a_too_large_object_is_400_fails_the_upload_and_is_deleted(
    api, user, thing, s3, settings, django_capture_on_commit_callbacks
):
    settings.UPLOAD_MAX_BYTES = 10
    upload = upload_started(owner=user, target_id=thing.pk)
    store.put(upload.key, b"x" * 11)
    with django_capture_on_commit_callbacks(execute=True):
        body = assert_error(finalize(api, upload), 400, "UPLOAD_TOO_LARGE")
    assert body["error"] == "The uploaded file is too large"
    upload.refresh_from_db()
    assert (upload.status, upload.size) == (Upload.Status.FAILED, 11)
    assert store.head(upload.key) is None
    assert Thing.objects.get(pk=thing.pk).file_count == 0


def test_an_expired_upload_that_never_arrived_is_400_expired(api, user, thing, s3):
    upload = upload_started(owner=user, target_id=thing.pk)
    Upload.objects.filter(pk=upload.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(finalize(api, upload), 400, "UPLOAD_EXPIRED")
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.EXPIRED
    assert_error(finalize(api, upload), 400, "UPLOAD_EXPIRED")


def test_bytes_that_arrived_before_expiry_can_still_be_finalized_after_it(api, arrived, enqueued):
    Upload.objects.filter(pk=arrived.pk).update(expires_at=timezone.now() - timedelta(minutes=5))
    assert finalize(api, arrived).status_code == 200
    assert ThingFile.objects.count() == 1


def test_a_thing_deleted_meanwhile_is_404_and_the_upload_fails(
    api, arrived, thing, enqueued, django_capture_on_commit_callbacks
):
    thing.delete()
    with django_capture_on_commit_callbacks(execute=True):
        assert_error(finalize(api, arrived), 404)
    arrived.refresh_from_db()
    assert arrived.status == Upload.Status.FAILED
    assert store.head(arrived.key) is None
    assert not ThingFile.objects.exists() and enqueued == []
    assert_error(finalize(api, arrived), 400, "UPLOAD_FAILED")


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
def test_finalize_query_count(api, arrived, enqueued, django_assert_num_queries):
    api.get("/users/me/")
    # token; upload; SAVEPOINT; lock upload; UPDATE Thing file_count; INSERT file; INSERT the processing's
    # pending task (apps/core/broker/enqueue.py; its DELETE follows the publish on commit); UPDATE upload; RELEASE
    with django_assert_num_queries(9):
        assert finalize(api, arrived).status_code == 200
    # token; upload with its file
    with django_assert_num_queries(2):
        assert finalize(api, arrived).status_code == 200


def test_the_error_body_is_the_house_shape(api, user, thing, s3):
    upload = upload_started(owner=user, target_id=thing.pk)
    response = finalize(api, upload)
    assert response.json() == {
        "error": "The upload has not arrived in the store yet",
        "code": 400,
        "type": "UPLOAD_MISSING",
    }
    assert response["X-Error"] == "The upload has not arrived in the store yet"
    assert json.loads(response.content)["type"] == "UPLOAD_MISSING"
