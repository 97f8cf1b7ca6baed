"""The site's upload flow and file manager (issue 15, spec §4.10): the page hands out the signed form, the
bytes go straight to the store (moto, here through `requests` as the browser would), the page finalizes,
processing runs, and the status endpoint reports each file's state. Plus downloads and the owner's changes.
"""

import io
import zipfile

import pytest
import requests
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image, ProcessingStatus, ThingFile, Upload
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory, live_file
from apps.uploads.tests.upload_helpers import png_bytes, stl_bytes, store_post

pytestmark = pytest.mark.django_db

JSON_TYPE = "application/json"
JSON = {"HTTP_ACCEPT": JSON_TYPE}


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, name="Cable clip")


@pytest.fixture
def captured(django_capture_on_commit_callbacks):
    """Processing and package builds are queued on commit (Celery runs eagerly in tests): a request made
    inside `with captured():` has them done when the block ends, as a worker would soon after."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def _start(browser, thing, filename):
    return browser.post(
        f"/thing:{thing.pk}/uploads", {"filename": filename}, content_type="application/json", **JSON
    )


def _upload(browser, thing, filename, data, captured):
    descriptor = _start(browser, thing, filename).json()
    assert store_post(descriptor, data, filename=filename).status_code == 303
    with captured():
        response = browser.post(f"/account/uploads/{descriptor['upload_id']}/finalize", **JSON)
    return descriptor, response


def test_starting_an_upload_answers_the_signed_form_of_the_upload_flow(browser, thing, user):
    response = _start(browser, thing, "clip.stl")
    assert response.status_code == 200
    body = response.json()
    upload = Upload.objects.get(pk=body["upload_id"])
    assert upload.owner == user and upload.kind == Upload.Kind.THING_FILE and body["kind"] == "file"
    assert body["action"].endswith("/thingyard")
    assert list(body["fields"])[:2] == ["AWSAccessKeyId", "bucket"]
    assert body["fields"]["success_action_redirect"] == f"http://testserver/files/{upload.pk}/finalize"


def test_an_image_name_starts_an_image_upload(browser, thing):
    assert _start(browser, thing, "photo.JPG").json()["kind"] == "image"


def test_only_the_owner_starts_uploads(thing):
    stranger = Client()
    stranger.force_login(UserFactory())
    assert _start(stranger, thing, "clip.stl").status_code == 404
    assert not Upload.objects.exists()


def test_a_blank_filename_is_refused_in_words(browser, thing):
    response = _start(browser, thing, "")
    assert response.status_code == 400 and response.json()["ok"] is False


def test_an_stl_and_a_photo_go_live_through_the_store_and_finalize(browser, thing, captured):
    _, stl = _upload(browser, thing, "clip.stl", stl_bytes(), captured)
    _, photo = _upload(browser, thing, "photo.png", png_bytes(), captured)
    assert stl.status_code == 200 and stl.json()["kind"] == "file"
    assert photo.json()["kind"] == "image"
    # Processing ran (Celery eager in tests): the STL has its geometry, the photo its sizes.
    file = ThingFile.objects.get(thing=thing)
    assert file.status == ProcessingStatus.LIVE and file.threejs_key and file.geometry and file.geometry["triangles"] == 4
    assert Image.objects.get(thing=thing, source_file=None).status == ProcessingStatus.LIVE
    status = browser.get(f"/thing:{thing.pk}/files/status?view=edit", **JSON).json()
    assert status["settled"] is True
    assert status["states"] == {
        f"file:{file.pk}": {"status": "live", "error": ""},
        f"image:{Image.objects.get(thing=thing, source_file=None).pk}": {"status": "live", "error": ""},
    }
    assert "clip.stl" in status["files_html"] and "4 triangles" in status["files_html"]
    assert "10.0 × 10.0 × 10.0 mm" in status["files_html"] and "photo.png" in status["images_html"]


def test_the_thing_page_offers_the_3d_preview_of_a_processed_stl(browser, thing, captured):
    _upload(browser, thing, "clip.stl", stl_bytes(), captured)
    file = ThingFile.objects.get(thing=thing)
    html = Client().get(f"/thing:{thing.pk}").content.decode()
    assert f'data-file-id="{file.pk}"' in html and 'data-kind="model"' in html
    assert file.threejs_key in html.replace("%2F", "/")  # the geometry's signed store URL
    assert '"three": "/static/vendor/three/three.module.min.js"' in html


def test_the_geometry_is_readable_by_the_browser_from_the_store(browser, thing, captured):
    """The page's preview fetches the three.js JSON from the store with CORS (moto answers it)."""
    _upload(browser, thing, "clip.stl", stl_bytes(), captured)
    html = browser.get(f"/thing:{thing.pk}").content.decode()
    url = html.split('data-geometry="')[1].split('"')[0].replace("&amp;", "&")
    response = requests.get(url, headers={"Origin": "http://testserver"}, timeout=10)
    assert response.status_code == 200 and response.json()["metadata"]["type"] == "BufferGeometry"
    assert response.headers.get("Access-Control-Allow-Origin") in ("*", "http://testserver")


def test_finalizing_before_the_bytes_arrived_says_so(browser, thing):
    descriptor = _start(browser, thing, "clip.stl").json()
    response = browser.post(f"/account/uploads/{descriptor['upload_id']}/finalize", **JSON)
    assert response.status_code == 400 and response.json()["type"] == "UPLOAD_MISSING"


def test_nobody_finalizes_someone_elses_upload(browser, thing):
    descriptor = _start(browser, thing, "clip.stl").json()
    store_post(descriptor, stl_bytes(), filename="clip.stl")
    stranger = Client()
    stranger.force_login(UserFactory())
    response = stranger.post(f"/account/uploads/{descriptor['upload_id']}/finalize", headers={"accept": JSON_TYPE})
    assert response.status_code == 404 and not ThingFile.objects.exists()


def test_a_failed_processing_shows_its_reason(browser, thing, captured):
    _upload(browser, thing, "broken.stl", b"solid x\nfacet normal 0 0 0\nnot a mesh\n", captured)
    status = browser.get(f"/thing:{thing.pk}/files/status", **JSON).json()
    file = ThingFile.objects.get(thing=thing)
    assert file.status == ProcessingStatus.FAILED
    assert status["states"][f"file:{file.pk}"]["status"] == "failed"
    assert "Processing failed:" in status["files_html"]


def test_visitors_see_only_live_files_and_no_images_manager(client, user):
    thing = ThingFactory(creator=user)
    ThingFileFactory(thing=thing, name="ready.stl")
    ThingFileFactory(thing=thing, name="busy.stl", status=ProcessingStatus.PROCESSING)
    body = client.get(f"/thing:{thing.pk}/files/status?view=edit", **JSON).json()
    assert "ready.stl" in body["files_html"] and "busy.stl" not in body["files_html"]
    assert "images_html" not in body and body["settled"] is True


def test_the_status_of_someone_elses_draft_is_404(client, user):
    draft = ThingFactory(creator=user, is_published=False, published_at=None)
    assert client.get(f"/thing:{draft.pk}/files/status").status_code == 404


# --- download all -----------------------------------------------------------------------------------------


def test_download_all_is_preparing_then_ready(client, s3, user, captured):
    thing = ThingFactory(creator=user)
    live_file(s3, thing, name="a.stl")
    with captured():
        first = client.get(f"/thing:{thing.pk}/package", **JSON)
    # The build is queued on commit (eager in tests, so it is done by the next request).
    assert first.json() == {"status": "building", "url": None}
    ready = client.get(f"/thing:{thing.pk}/package", **JSON).json()
    assert ready["status"] == "ready"
    archive = zipfile.ZipFile(io.BytesIO(requests.get(ready["url"], timeout=10).content))
    assert sorted(archive.namelist()) == ["LICENSE.txt", "README.txt", "a.stl"]
    assert client.get(f"/thing:{thing.pk}/package")["Location"] == ready["url"]


def test_download_all_without_javascript_shows_the_preparing_page(client, s3, user):
    thing = ThingFactory(creator=user)
    live_file(s3, thing, name="a.stl")
    response = client.get(f"/thing:{thing.pk}/package")
    assert response.status_code == 202 and "Preparing your download" in response.content.decode()


def test_download_all_without_live_files_says_so(client, user):
    thing = ThingFactory(creator=user)
    response = client.get(f"/thing:{thing.pk}/package", **JSON)
    assert response.status_code == 404 and response.json()["status"] == "unavailable"


# --- the owner's changes ------------------------------------------------------------------------------------


def test_the_owner_deletes_a_file_and_the_count_follows(browser, s3, thing):
    file = live_file(s3, thing, name="a.stl")
    assert browser.post(f"/thing:{thing.pk}/files/{file.pk}/delete").status_code == 302
    assert not ThingFile.objects.exists() and Thing.objects.get(pk=thing.pk).file_count == 0


def test_the_owner_features_reorders_and_deletes_images(browser, thing):
    a, b, c = (ImageFactory(thing=thing, name=f"{n}.jpg", rank=0) for n in "abc")
    browser.post(f"/thing:{thing.pk}/images/{c.pk}/feature")
    assert Image.objects.get(pk=c.pk).featured
    browser.post(f"/thing:{thing.pk}/images/{c.pk}/move", {"direction": "up"})
    assert list(
        Image.objects.filter(thing=thing, source_file=None)
        .order_by("rank", "id")
        .values_list("name", flat=True)
    ) == [
        "a.jpg",
        "c.jpg",
        "b.jpg",
    ]
    response = browser.post(
        f"/thing:{thing.pk}/images/order",
        {"ids": [b.pk, a.pk, c.pk]},
        content_type="application/json",
        **JSON,
    )
    assert response.json()["order"] == [b.pk, a.pk, c.pk]
    assert list(Image.objects.filter(thing=thing).order_by("rank").values_list("name", flat=True)) == [
        "b.jpg",
        "a.jpg",
        "c.jpg",
    ]
    browser.post(f"/thing:{thing.pk}/images/{a.pk}/delete")
    assert not Image.objects.filter(pk=a.pk).exists()


def test_nobody_else_changes_the_files_or_images(thing, s3):
    file = live_file(s3, thing, name="a.stl")
    image = ImageFactory(thing=thing)
    stranger = Client()
    stranger.force_login(UserFactory())
    for path in (
        f"/thing:{thing.pk}/files/{file.pk}/delete",
        f"/thing:{thing.pk}/images/{image.pk}/delete",
        f"/thing:{thing.pk}/images/{image.pk}/feature",
        f"/thing:{thing.pk}/images/{image.pk}/move",
    ):
        assert stranger.post(path).status_code == 404, path
    assert ThingFile.objects.filter(pk=file.pk).exists() and not Image.objects.get(pk=image.pk).featured


def test_an_image_of_another_thing_cannot_be_reordered_through_this_one(browser, thing):
    mine = ImageFactory(thing=thing, rank=5)
    other = ImageFactory(rank=7)
    browser.post(
        f"/thing:{thing.pk}/images/order",
        {"ids": [other.pk, mine.pk]},
        content_type="application/json",
        **JSON,
    )
    assert Image.objects.get(pk=other.pk).rank == 7 and Image.objects.get(pk=mine.pk).rank == 1
