"""GET /things/{id}/files, GET and DELETE /things/{id}/files/{file_id} (spec §4.2), GET /files/{id}/ (§4.3)."""
import re
import urllib.request
from datetime import UTC, datetime

import pytest

from tests.support.api import assert_error, assert_unauthorized
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import ProcessingStatus, ThingFile
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory, exists, live_file, put

pytestmark = pytest.mark.django_db

FILE_KEYS = {
    "id", "name", "size", "url", "public_url", "download_url", "threejs_url", "thumbnail", "date",
    "formatted_size", "default_image", "meta_data", "geometry", "status", "processing_error",
    "direct_url", "download_count",  # docs/decisions.md: Wire versions, served in every version
}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")
PLACEHOLDER = "http://testserver/static/things/placeholder.png"


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url) as response:  # the signed URL really opens the object (moto)
        return response.read()


def test_it_lists_a_things_live_files_with_every_field(api, other_user, s3):
    thing = ThingFactory(creator=other_user)
    file = live_file(s3, thing, name="bracket.stl", geometry={"triangles": 12})
    response = api.get(f"/things/{thing.pk}/files")
    assert response.status_code == 200
    assert 'rel="last"' in response["Link"]
    [body] = response.json()
    assert set(body) == FILE_KEYS
    assert body["id"] == file.pk
    assert body["name"] == "bracket.stl"
    assert body["size"] == file.size
    assert body["url"] == f"http://testserver/files/{file.pk}"
    assert body["download_url"] == f"http://testserver/files/{file.pk}/download"
    assert body["public_url"] == f"http://testserver/thing:{thing.pk}#file-{file.pk}"
    assert body["threejs_url"] == ""
    assert body["thumbnail"] == PLACEHOLDER
    assert body["default_image"] is None
    # docs/decisions.md (compat): `meta_data` is always an array; the mesh analysis is `geometry`.
    assert body["meta_data"] == []
    assert body["geometry"] == {"triangles": 12}
    assert body["status"] == "live"
    assert body["processing_error"] == ""


def test_the_date_is_exactly_yyyy_mm_dd_hh_mm_ss_in_utc(api, user, s3):
    file = live_file(s3, ThingFactory(creator=user))
    ThingFile.objects.filter(pk=file.pk).update(added=datetime(2026, 11, 20, 12, 3, 4, 987654, tzinfo=UTC))
    body = api.get(f"/files/{file.pk}/").json()
    assert body["date"] == "2026-11-20 12:03:04"
    assert DATE.match(body["date"])


@pytest.mark.parametrize(
    ("size", "formatted"),
    [(0, "0 B"), (512, "512 B"), (1024, "1.0 KB"), (1_258_291, "1.2 MB"), (3 * 1024**3, "3.0 GB")],
)
def test_formatted_size_uses_binary_units_with_one_decimal(api, user, size, formatted):
    file = ThingFileFactory(thing=ThingFactory(creator=user), size=size)
    assert api.get(f"/files/{file.pk}").json()["formatted_size"] == formatted


def test_rendered_thumbnail_and_threejs_are_signed_store_urls(api, user, s3):
    file = live_file(s3, ThingFactory(creator=user))
    file.thumbnail_key = put(s3, file.key + ".thumb.png", b"PNG")
    file.threejs_key = put(s3, file.key + ".json", b"{}")
    file.save()
    body = api.get(f"/files/{file.pk}/").json()
    assert fetch(body["thumbnail"]) == b"PNG"
    assert fetch(body["threejs_url"]) == b"{}"
    assert fetch(body["default_image"]["url"]) == b"PNG"  # the file's render in the image shape
    assert {(s["type"], s["size"]) for s in body["default_image"]["sizes"]} >= {("thumb", "large"), ("display", "large")}


def test_others_see_only_live_files_and_the_owner_sees_every_status(client_for, user, other_user, s3):
    thing = ThingFactory(creator=user)
    live = live_file(s3, thing)
    processing = ThingFileFactory(thing=thing, status=ProcessingStatus.PROCESSING)
    failed = ThingFileFactory(thing=thing, status=ProcessingStatus.FAILED, processing_error="Not a mesh")
    owner_ids = [f["id"] for f in client_for(user).get(f"/things/{thing.pk}/files").json()]
    assert owner_ids == [live.pk, processing.pk, failed.pk]
    other = client_for(other_user)
    assert [f["id"] for f in other.get(f"/things/{thing.pk}/files").json()] == [live.pk]
    for hidden in (processing, failed):
        assert_error(other.get(f"/things/{thing.pk}/files/{hidden.pk}"), 404)
        assert_error(other.get(f"/files/{hidden.pk}/"), 404)
    body = client_for(user).get(f"/things/{thing.pk}/files/{failed.pk}").json()
    assert (body["status"], body["processing_error"]) == ("failed", "Not a mesh")


def test_the_file_detail_is_the_things_file_only(api, other_user, s3):
    thing, elsewhere = ThingFactory(creator=other_user), ThingFactory(creator=other_user)
    file = live_file(s3, thing)
    response = api.get(f"/things/{thing.pk}/files/{file.pk}")
    assert response.status_code == 200
    assert set(response.json()) == FILE_KEYS
    assert_error(api.get(f"/things/{elsewhere.pk}/files/{file.pk}"), 404, "NOT_FOUND")
    assert_error(api.get(f"/things/{thing.pk}/files/999999"), 404)


def test_a_missing_thing_or_file_is_404(api):
    assert_error(api.get("/things/999999/files"), 404)
    assert_error(api.get("/files/999999/"), 404)
    assert_error(api.get("/files/999999"), 404)
    assert_error(api.get("/files/99999999999999999999999/"), 404)  # beyond bigint: no 500


def test_the_owner_sees_files_of_their_draft(api, user, s3):
    draft = ThingFactory(creator=user, is_published=False)
    file = live_file(s3, draft)
    assert [f["id"] for f in api.get(f"/things/{draft.pk}/files").json()] == [file.pk]
    assert api.get(f"/files/{file.pk}").json()["id"] == file.pk


def test_delete_removes_the_row_its_objects_and_one_from_file_count(
    api, user, s3, django_capture_on_commit_callbacks
):
    thing = ThingFactory(creator=user)
    file = live_file(s3, thing)
    file.thumbnail_key = put(s3, file.key + ".thumb.png", b"PNG")
    file.threejs_key = put(s3, file.key + ".json", b"{}")
    file.save()
    keep = live_file(s3, thing, name="other.stl")
    with django_capture_on_commit_callbacks(execute=True):
        response = api.delete(f"/things/{thing.pk}/files/{file.pk}")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert not ThingFile.objects.filter(pk=file.pk).exists()
    assert Thing.objects.get(pk=thing.pk).file_count == 1
    for key in (file.key, file.thumbnail_key, file.threejs_key):
        assert not exists(s3, key)
    assert exists(s3, keep.key)
    assert_error(api.delete(f"/things/{thing.pk}/files/{file.pk}"), 404)
    assert Thing.objects.get(pk=thing.pk).file_count == 1


def test_delete_is_for_the_owner_only(anon_client, api, other_user, s3):
    thing = ThingFactory(creator=other_user)
    file = live_file(s3, thing)
    assert_error(api.delete(f"/things/{thing.pk}/files/{file.pk}"), 403, "FORBIDDEN")
    assert_unauthorized(anon_client.delete(f"/things/{thing.pk}/files/{file.pk}"))
    assert ThingFile.objects.filter(pk=file.pk).exists()
    assert exists(s3, file.key)


def test_a_file_of_another_thing_cannot_be_deleted_through_ones_own(api, user, other_user, s3):
    theirs = live_file(s3, ThingFactory(creator=other_user))
    mine = ThingFactory(creator=user)
    assert_error(api.delete(f"/things/{mine.pk}/files/{theirs.pk}"), 404)
    assert ThingFile.objects.filter(pk=theirs.pk).exists()


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_is_constant(api, user, rows, django_assert_num_queries):
    thing = ThingFactory(creator=user)
    ThingFileFactory.create_batch(rows, thing=thing, thumbnail_key="t.png", threejs_key="t.json")
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing; COUNT of its files; the page of files
    with django_assert_num_queries(4):
        response = api.get(f"/things/{thing.pk}/files")
    assert len(response.json()) == rows


def test_file_detail_query_count(api, user, django_assert_num_queries):
    file = ThingFileFactory(thing=ThingFactory(creator=user))
    api.get("/users/me/")
    # token; the file; its Thing (the visibility matrix)
    with django_assert_num_queries(3):
        assert api.get(f"/files/{file.pk}/").status_code == 200


def _published_image_fields() -> set[str]:
    from tests.compat.helpers import openapi_document

    schemas = openapi_document()["components"]["schemas"]
    assert schemas["File"]["properties"]["default_image"]["allOf"] == [{"$ref": "#/components/schemas/Image"}]
    return set(schemas["Image"]["required"])


def test_a_legacy_render_as_default_image_has_every_field_the_schema_publishes(api, user, s3):
    # issue 14, finding 11: `default_image` lacked `status`, which the Image schema requires.
    file = live_file(s3, ThingFactory(creator=user))
    file.thumbnail_key = put(s3, file.key + ".thumb.png", b"PNG")
    file.save()
    image = api.get(f"/files/{file.pk}/").json()["default_image"]
    assert set(image) == _published_image_fields()
    assert image["status"] == "live"


def test_a_render_image_as_default_image_has_every_field_the_schema_publishes(api, user, s3):
    file = live_file(s3, ThingFactory(creator=user))
    ImageFactory(thing=file.thing, source_file=file, key=put(s3, file.key + ".render.png", b"PNG"))
    for body in (api.get(f"/files/{file.pk}/").json(), api.get(f"/things/{file.thing_id}/files").json()[0]):
        image = body["default_image"]
        assert image is not None and set(image) == _published_image_fields()
        assert image["status"] == "live"
