"""The whole upload flow (spec §4.10) exactly as a third-party client runs it: the API through its
test client with a token, the object store (moto's real S3 server) over real HTTP without one."""

from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from apps.uploads import store
from apps.uploads.models import Upload
from apps.uploads.tests.upload_helpers import png_bytes, stl_bytes, store_post

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing_id(api):
    response = api.post("/things/", {"name": "Cable clip", "description": "Holds cables."}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["id"]


def upload(api, start_path: str, filename: str, data: bytes, content_type: str, captured) -> dict:
    """Steps 2 to 5: start, POST the bytes to the store, follow the redirect to finalize."""
    started = api.post(start_path, {"filename": filename}, format="json")
    assert started.status_code == 200, started.content
    descriptor = started.json()
    assert "Authorization" not in descriptor["fields"]

    stored = store_post(descriptor, data, filename=filename, content_type=content_type)
    assert stored.status_code == 303, stored.text
    location = urlsplit(stored.headers["Location"])
    redirect = urlsplit(descriptor["fields"]["success_action_redirect"])
    assert (location.scheme, location.netloc, location.path) == (
        redirect.scheme,
        redirect.netloc,
        redirect.path,
    )
    query = parse_qs(location.query)
    assert query["key"] == [descriptor["fields"]["key"]]
    assert query["bucket"] == [descriptor["fields"]["bucket"]]

    # Step 5: the redirect's path, POSTed with the token and an empty body; processing runs on commit.
    with captured(execute=True):
        finalized = api.post(location.path, data="", content_type="application/x-www-form-urlencoded")
    assert finalized.status_code == 200, finalized.content
    summary = finalized.json()
    assert set(summary) == {"id", "name", "url"}
    assert summary["name"] == filename
    return summary


def test_a_client_uploads_an_stl_file_to_its_thing(api, thing_id, s3, django_capture_on_commit_callbacks):
    data = stl_bytes()
    summary = upload(
        api,
        f"/things/{thing_id}/files",
        "cable clip.stl",
        data,
        "model/stl",
        django_capture_on_commit_callbacks,
    )
    assert summary["url"] == f"http://testserver/files/{summary['id']}"

    # Step 6: poll the file until it is live.
    file = api.get(urlsplit(summary["url"]).path + "/").json()
    assert file["id"] == summary["id"]
    assert (file["name"], file["size"], file["status"]) == ("cable clip.stl", len(data), "live")
    assert api.get(f"/things/{thing_id}/").json()["file_count"] == 1
    assert [f["id"] for f in api.get(f"/things/{thing_id}/files").json()] == [summary["id"]]

    # The bytes come back from the store, through store.py's signed URL and the API's download.
    upload_row = Upload.objects.get(file_id=summary["id"])
    assert requests.get(store.download_url(upload_row.key), timeout=10).content == data
    redirect = api.get(f"/files/{summary['id']}/download")
    assert redirect.status_code == 302
    assert requests.get(redirect["Location"], timeout=10).content == data


def test_a_client_uploads_a_png_image_to_its_thing(api, thing_id, s3, django_capture_on_commit_callbacks):
    data = png_bytes(size=(320, 240))
    summary = upload(
        api, f"/things/{thing_id}/files", "photo.png", data, "image/png", django_capture_on_commit_callbacks
    )
    assert summary["url"] == f"http://testserver/things/{thing_id}/images/{summary['id']}"

    image = api.get(f"/things/{thing_id}/images/{summary['id']}").json()
    assert (image["id"], image["name"]) == (summary["id"], "photo.png")
    assert image["sizes"], image
    assert api.get(f"/things/{thing_id}/").json()["file_count"] == 0

    upload_row = Upload.objects.get(image_id=summary["id"])
    assert requests.get(store.download_url(upload_row.key), timeout=10).content == data
    for size in image["sizes"]:
        assert requests.get(size["url"], timeout=10).status_code == 200


def test_a_client_uploads_its_users_avatar(api, user, s3, django_capture_on_commit_callbacks):
    data = png_bytes(size=(128, 128), color=(10, 200, 10))
    summary = upload(
        api, "/users/me/avatar-image", "me.png", data, "image/png", django_capture_on_commit_callbacks
    )
    assert requests.get(summary["url"], timeout=10).content == data

    thumbnail = api.get("/users/me/").json()["thumbnail"]
    assert requests.get(thumbnail, timeout=10).content == data
    user.refresh_from_db()
    assert user.avatar == Upload.objects.get(pk=summary["id"]).key


def test_a_client_uploads_its_users_cover(api, user, s3, django_capture_on_commit_callbacks):
    data = png_bytes(size=(600, 200))
    upload(api, "/users/me/cover-image", "cover.png", data, "image/png", django_capture_on_commit_callbacks)
    cover = api.get("/users/me/").json()["cover_image"]
    assert requests.get(cover, timeout=10).content == data


def test_finalize_before_the_bytes_arrive_is_400_and_works_after(
    api, thing_id, s3, django_capture_on_commit_callbacks
):
    descriptor = api.post(f"/things/{thing_id}/files", {"filename": "late.stl"}, format="json").json()
    finalize_path = urlsplit(descriptor["fields"]["success_action_redirect"]).path
    assert api.post(finalize_path).json()["type"] == "UPLOAD_MISSING"
    assert store_post(descriptor, stl_bytes(), filename="late.stl").status_code == 303
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(finalize_path).status_code == 200


def test_the_v4_form_uploads_too(api, thing_id, s3, settings, django_capture_on_commit_callbacks):
    settings.S3_SIGNATURE_MODE = "v4"
    summary = upload(
        api,
        f"/things/{thing_id}/files",
        "v4.stl",
        stl_bytes(),
        "model/stl",
        django_capture_on_commit_callbacks,
    )
    assert summary["name"] == "v4.stl"
