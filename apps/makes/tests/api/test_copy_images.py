"""GET/POST /copies/{id}/images and GET/PATCH/DELETE /copies/{id}/images/{image_id} (spec §4.4)."""
import pytest

from apps.makes.tests.factories import MakeFactory, make_image
from tests.support.api import assert_error, assert_unauthorized, ids
from apps.makes.tests.helpers import IMAGE_STATE_KEYS
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image, ProcessingStatus, Upload
from apps.uploads.tests.file_factories import ImageFactory, exists, put

pytestmark = pytest.mark.django_db


@pytest.fixture
def own(user):
    return MakeFactory(creator=user)


@pytest.fixture
def theirs(other_user):
    return MakeFactory(creator=other_user)


# --- GET ---------------------------------------------------------------------------------------------


def test_get_lists_the_images_by_rank(api, theirs):
    b, a = make_image(theirs, rank=2), make_image(theirs, rank=1)
    make_image(MakeFactory())  # another copy's image
    response = api.get(f"/copies/{theirs.pk}/images")
    assert ids(response) == [a.pk, b.pk]
    assert 'rel="last"' in response["Link"]
    assert set(response.json()[0]) == IMAGE_STATE_KEYS
    assert {(s["type"], s["size"]) for s in response.json()[0]["sizes"]} >= {("thumb", "large"), ("display", "small")}


def test_get_filters_sizes_by_type_and_size(api, theirs):
    make_image(theirs)
    sizes = api.get(f"/copies/{theirs.pk}/images", {"type": "display", "size": "small"}).json()[0]["sizes"]
    assert [(s["type"], s["size"]) for s in sizes] == [("display", "small")]


@pytest.mark.parametrize("query", [{"size": "small"}, {"type": "huge"}])
def test_get_bad_query_is_400(api, theirs, query):
    assert_error(api.get(f"/copies/{theirs.pk}/images", query), 400, "VALIDATION_FAILED")


def test_only_the_creator_sees_images_still_processing(client_for, user, other_user, own):
    live = make_image(own, rank=0)
    processing = make_image(own, rank=1, status=ProcessingStatus.PROCESSING, sizes=[])
    assert ids(client_for(user).get(f"/copies/{own.pk}/images")) == [live.pk, processing.pk]
    other = client_for(other_user)
    assert ids(other.get(f"/copies/{own.pk}/images")) == [live.pk]
    assert_error(other.get(f"/copies/{own.pk}/images/{processing.pk}"), 404)


def test_get_one_image(api, theirs):
    image = make_image(theirs)
    response = api.get(f"/copies/{theirs.pk}/images/{image.pk}")
    assert response.status_code == 200
    assert response.json()["id"] == image.pk and set(response.json()) == IMAGE_STATE_KEYS


def test_another_copys_or_a_things_image_is_404_here(api, theirs):
    for image in (make_image(MakeFactory()), ImageFactory(thing=ThingFactory())):
        assert_error(api.get(f"/copies/{theirs.pk}/images/{image.pk}"), 404)


def test_the_copys_visibility_applies(anon_client, api, other_user):
    hidden = MakeFactory(is_hidden=True, hidden_reason="spam")
    image = make_image(hidden)
    assert_error(api.get(f"/copies/{hidden.pk}/images"), 404)
    assert_error(api.get(f"/copies/{hidden.pk}/images/{image.pk}"), 404)
    assert_error(api.get("/copies/999999/images"), 404)
    assert_unauthorized(anon_client.get(f"/copies/{hidden.pk}/images"))


@pytest.mark.parametrize("rows", [1, 30])
def test_get_query_count_does_not_grow(api, theirs, rows, django_assert_num_queries):
    for rank in range(rows):
        make_image(theirs, rank=rank)
    api.get("/users/me/")
    with django_assert_num_queries(4):  # token; the copy; COUNT images; SELECT images
        assert len(api.get(f"/copies/{theirs.pk}/images").json()) == rows


# --- POST: start uploading another image -------------------------------------------------------------


def test_post_answers_the_descriptor_of_another_image(api, user, own):
    response = api.post(f"/copies/{own.pk}/images", {"filename": "side.webp"}, format="json")
    assert response.status_code == 200, response.content
    upload = Upload.objects.get()
    assert (upload.kind, upload.target_id, upload.owner_id) == (Upload.Kind.COPY_IMAGE, own.pk, user.pk)
    assert response.json()["fields"]["key"] == upload.key


@pytest.mark.parametrize("body", [{}, {"filename": "model.stl"}, {"filename": "  "}])
def test_post_bad_input_is_400(api, own, body):
    assert_error(api.post(f"/copies/{own.pk}/images", body, format="json"), 400, "VALIDATION_FAILED")


# --- PATCH -------------------------------------------------------------------------------------------


def test_patch_sets_the_rank(api, own):
    a, b = make_image(own, rank=0), make_image(own, rank=1)
    response = api.patch(f"/copies/{own.pk}/images/{a.pk}", {"rank": 5}, format="json")
    assert (response.status_code, response.json()) == (200, {"ok": True})
    assert ids(api.get(f"/copies/{own.pk}/images")) == [b.pk, a.pk]


def test_featuring_an_image_makes_it_the_thumbnail_and_unfeatures_the_others(api, own):
    first = make_image(own, rank=0, featured=True)
    second = make_image(own, rank=1)
    assert f"{first.key}.thumb_medium" in api.get(f"/copies/{own.pk}/").json()["thumbnail"]
    assert api.patch(f"/copies/{own.pk}/images/{second.pk}", {"featured": True}, format="json").status_code == 200
    assert list(Image.objects.filter(copy=own, featured=True).values_list("pk", flat=True)) == [second.pk]
    assert f"{second.key}.thumb_medium" in api.get(f"/copies/{own.pk}/").json()["thumbnail"]
    # Other copies' featured images are not touched.
    elsewhere = make_image(MakeFactory(), featured=True)
    api.patch(f"/copies/{own.pk}/images/{first.pk}", {"featured": True}, format="json")
    assert Image.objects.get(pk=elsewhere.pk).featured


@pytest.mark.parametrize("body", [{"rank": -1}, {"rank": "high"}, {"rank": True}, {"featured": 2}])
def test_patch_bad_input_is_400(api, own, body):
    image = make_image(own)
    assert_error(api.patch(f"/copies/{own.pk}/images/{image.pk}", body, format="json"), 400, "VALIDATION_FAILED")


def test_patch_of_someone_elses_copy_is_403_and_unknown_404(api, own, theirs):
    image = make_image(theirs)
    assert_error(api.patch(f"/copies/{theirs.pk}/images/{image.pk}", {"rank": 1}, format="json"), 403)
    assert_error(api.patch(f"/copies/{own.pk}/images/{image.pk}", {"rank": 1}, format="json"), 404)
    assert_error(api.patch(f"/copies/{own.pk}/images/999999", {"rank": 1}, format="json"), 404)


def test_delete_removes_the_image_and_its_objects_on_commit(api, own, s3, django_capture_on_commit_callbacks):
    image = make_image(own)
    keys = [image.key, *(size["key"] for size in image.sizes)]
    for key in keys:
        put(s3, key, b"jpeg")
    with django_capture_on_commit_callbacks(execute=True):
        response = api.delete(f"/copies/{own.pk}/images/{image.pk}")
    assert (response.status_code, response.json()) == (200, {"ok": True})
    assert not Image.objects.filter(pk=image.pk).exists()
    assert not any(exists(s3, key) for key in keys)
