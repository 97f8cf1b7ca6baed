"""Starting an upload: POST /things/{id}/files (spec §4.2), /users/{username}/avatar-image and
/cover-image (spec §4.1). Each answers the upload descriptor (spec §2) for a new pending Upload."""

import base64
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.models import PendingTask

from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error
from apps.uploads.models import Upload

pytestmark = pytest.mark.django_db

FIELDS = [
    "AWSAccessKeyId",
    "bucket",
    "key",
    "acl",
    "success_action_redirect",
    "policy",
    "signature",
    "Content-Type",
    "Content-Disposition",
]


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, is_published=False)


def conditions(descriptor) -> list:
    return json.loads(base64.b64decode(descriptor["fields"]["policy"]))["conditions"]


def test_it_answers_a_descriptor_for_a_new_pending_thing_file(api, user, thing, settings):
    response = api.post(f"/things/{thing.pk}/files", {"filename": "Bracket v2.stl"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["action", "fields"]
    assert list(body["fields"]) == FIELDS
    upload = Upload.objects.get()
    assert (upload.owner, upload.kind, upload.target_id) == (user, Upload.Kind.THING_FILE, thing.pk)
    assert upload.status == Upload.Status.PENDING
    assert upload.filename == "Bracket v2.stl"
    assert upload.content_type == "model/stl"
    assert upload.key.startswith(f"uploads/{user.pk}/") and upload.key.endswith("/Bracket_v2.stl")
    assert timezone.now() + timedelta(minutes=59) < upload.expires_at <= timezone.now() + timedelta(hours=1)
    assert body["fields"]["key"] == upload.key
    assert body["fields"]["success_action_redirect"] == f"http://testserver/files/{upload.pk}/finalize"
    assert body["action"] == f"{settings.S3_ENDPOINT_URL}/{settings.S3_BUCKET}"
    assert {"key": upload.key} in conditions(body)


@pytest.mark.parametrize("filename", ["photo.JPG", "a.jpeg", "b.png", "c.gif", "d.webp"])
def test_an_image_name_starts_a_thing_image(api, thing, filename):
    assert api.post(f"/things/{thing.pk}/files", {"filename": filename}, format="json").status_code == 200
    assert Upload.objects.get().kind == Upload.Kind.THING_IMAGE


def test_the_body_may_be_a_form_or_json_labelled_as_a_form(api, thing):
    assert api.post(f"/things/{thing.pk}/files", {"filename": "a.stl"}).status_code == 200
    response = api.post(
        f"/things/{thing.pk}/files/",
        json.dumps({"filename": "b.stl"}),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert sorted(Upload.objects.values_list("filename", flat=True)) == ["a.stl", "b.stl"]


def test_a_path_traversal_name_keeps_the_key_under_the_service_prefix(api, user, thing):
    # (An extension: a name without one is refused since issue 26's allow-list, test_file_types.py.)
    response = api.post(f"/things/{thing.pk}/files", {"filename": "../../etc/passwd.txt"}, format="json")
    assert response.status_code == 200
    upload = Upload.objects.get()
    assert upload.filename == "passwd.txt"
    assert upload.key.startswith(f"uploads/{user.pk}/") and upload.key.endswith("/passwd.txt")
    assert ".." not in upload.key
    assert upload.kind == Upload.Kind.THING_FILE


def test_control_characters_and_backslashes_are_removed_from_the_name(api, thing):
    api.post(
        f"/things/{thing.pk}/files", {"filename": "C:\\Users\\me\\evil\r\nname\u202e.stl"}, format="json"
    )
    upload = Upload.objects.get()
    assert upload.filename == "evil name.stl"
    assert upload.key.endswith("/evil_name.stl")


def test_a_non_ascii_name_is_kept_for_display_and_made_ascii_in_the_key(api, thing):
    api.post(f"/things/{thing.pk}/files", {"filename": "Zahnrad für Öffner.stl"}, format="json")
    upload = Upload.objects.get()
    assert upload.filename == "Zahnrad für Öffner.stl"
    assert upload.key.endswith("/Zahnrad_fur_Offner.stl")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"filename": ""},
        {"filename": "   "},
        {"filename": "../"},
        {"filename": "\x01\x02"},
        {"filename": None},
    ],
)
def test_a_missing_or_blank_name_is_400(api, thing, body):
    body = assert_error(api.post(f"/things/{thing.pk}/files", body, format="json"), 400, "VALIDATION_FAILED")
    assert "filename" in body["errors"]
    assert not Upload.objects.exists()


def test_a_name_with_a_nul_is_400_before_any_validation(api, thing):
    # docs/security.md (issue 14, finding 3): a NUL anywhere in a request is refused by the middleware.
    assert_error(api.post(f"/things/{thing.pk}/files", {"filename": "\x00\x01"}, format="json"), 400,
                 "INVALID_CHARACTER")
    assert not Upload.objects.exists()


def test_a_name_over_255_characters_is_400(api, thing):
    assert_error(api.post(f"/things/{thing.pk}/files", {"filename": "a" * 252 + ".stl"}, format="json"), 400)
    assert (
        api.post(f"/things/{thing.pk}/files", {"filename": "a" * 251 + ".stl"}, format="json").status_code
        == 200
    )


def test_start_schedules_the_verification_after_the_delay(
    api, thing, settings, django_capture_on_commit_callbacks, monkeypatch
):
    from apps.uploads.flow import tasks

    calls = []
    monkeypatch.setattr(tasks.upload_verify, "apply_async", lambda *a, **kw: calls.append((a, kw)))
    with django_capture_on_commit_callbacks(execute=True):
        api.post(f"/things/{thing.pk}/files", {"filename": "a.stl"}, format="json")
    upload = Upload.objects.get()
    # Minutes away: not a broker countdown (a worker holding it past the visibility timeout would see it
    # handed out twice) but a pending-task row, written with the upload, published when due.
    assert calls == []
    row = PendingTask.objects.get()
    assert (row.task, row.args, row.kwargs) == (tasks.upload_verify.name, [upload.pk], {"attempt": 0})
    assert (row.due - row.created).total_seconds() == pytest.approx(settings.UPLOAD_VERIFY_DELAY_SECONDS, abs=1)


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
def test_start_query_count(api, thing, django_assert_num_queries):
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing (with the viewer's like/watch annotations); INSERT upload; INSERT its verification's
    # pending task (due in UPLOAD_VERIFY_DELAY_SECONDS)
    with django_assert_num_queries(4):
        assert api.post(f"/things/{thing.pk}/files", {"filename": "a.stl"}, format="json").status_code == 200
    with django_assert_num_queries(4):
        assert api.post(f"/things/{thing.pk}/files", {"filename": "b.png"}, format="json").status_code == 200


# --- avatar-image and cover-image (spec §4.1) ------------------------------------------------------


@pytest.mark.parametrize(
    "path,kind", [("avatar-image", Upload.Kind.AVATAR), ("cover-image", Upload.Kind.COVER)]
)
def test_own_avatar_and_cover_uploads_start(api, user, path, kind):
    for name in ("me", user.username):
        response = api.post(f"/users/{name}/{path}", {"filename": "me.png"}, format="json")
        assert response.status_code == 200, response.content
        assert list(response.json()["fields"]) == FIELDS
    uploads = list(Upload.objects.all())
    assert [(u.kind, u.target_id, u.content_type) for u in uploads] == [(kind, user.pk, "image/png")] * 2


@pytest.mark.parametrize("path", ["avatar-image", "cover-image"])
def test_avatar_and_cover_take_images_only(api, path):
    body = assert_error(
        api.post(f"/users/me/{path}", {"filename": "me.stl"}, format="json"), 400, "VALIDATION_FAILED"
    )
    assert "filename" in body["errors"]
    assert_error(api.post(f"/users/me/{path}", {"filename": "png"}, format="json"), 400)
    assert not Upload.objects.exists()


def test_avatar_start_query_count(api, django_assert_num_queries):
    api.get("/users/me/")
    # token; INSERT upload (the caller naming themselves costs no user query); INSERT its verification's
    # pending task
    with django_assert_num_queries(3):
        assert api.post("/users/me/avatar-image", {"filename": "a.png"}, format="json").status_code == 200
