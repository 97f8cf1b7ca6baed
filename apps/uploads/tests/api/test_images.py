"""GET, PATCH and DELETE /things/{id}/images/{image_id} (spec §4.2; image_id optional for GET)."""
import pytest

from tests.support.api import assert_error
from apps.makes.tests.factories import MakeFactory
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image, ProcessingStatus
from apps.uploads.tests.file_factories import ImageFactory, exists, put

pytestmark = pytest.mark.django_db

IMAGE_KEYS = {"id", "name", "url", "added", "rank", "featured", "sizes", "status", "processing_error"}


def variants(body) -> set[tuple[str, str]]:
    return {(s["type"], s["size"]) for s in body["sizes"]}


def test_it_lists_images_by_rank_with_their_sizes(api, other_user):
    thing = ThingFactory(creator=other_user)
    second = ImageFactory(thing=thing, rank=2)
    first = ImageFactory(thing=thing, rank=1)
    response = api.get(f"/things/{thing.pk}/images")
    assert response.status_code == 200
    assert 'rel="last"' in response["Link"]
    body = response.json()
    assert [image["id"] for image in body] == [first.pk, second.pk]
    assert set(body[0]) == IMAGE_KEYS
    assert variants(body[0]) == {(t, s) for t in ("thumb", "display") for s in ("large", "medium", "small")}
    assert all(size["url"].startswith("http") and set(size) == {"type", "size", "url"} for size in body[0]["sizes"])
    assert body[0]["added"].endswith("+00:00")


def test_one_image_in_detail(api, other_user, s3):
    thing = ThingFactory(creator=other_user)
    image = ImageFactory(thing=thing, name="front.jpg", featured=True, rank=3)
    put(s3, image.key, b"JPEG")
    body = api.get(f"/things/{thing.pk}/images/{image.pk}").json()
    assert set(body) == IMAGE_KEYS
    assert (body["id"], body["name"], body["rank"], body["featured"]) == (image.pk, "front.jpg", 3, True)
    import urllib.request

    with urllib.request.urlopen(body["url"]) as response:  # the original, signed
        assert response.read() == b"JPEG"


def test_type_narrows_the_sizes_and_size_narrows_them_further(api, other_user):
    thing = ThingFactory(creator=other_user)
    image = ImageFactory(thing=thing)
    body = api.get(f"/things/{thing.pk}/images/{image.pk}?type=display").json()
    assert variants(body) == {("display", "large"), ("display", "medium"), ("display", "small")}
    body = api.get(f"/things/{thing.pk}/images/{image.pk}?type=thumb&size=small").json()
    assert variants(body) == {("thumb", "small")}
    [listed] = api.get(f"/things/{thing.pk}/images?type=thumb&size=large").json()
    assert variants(listed) == {("thumb", "large")}
    # A valid variant the image was not rendered in: no sizes, not an error.
    assert api.get(f"/things/{thing.pk}/images/{image.pk}?type=preview&size=tiny").json()["sizes"] == []


@pytest.mark.parametrize(
    ("query", "field"),
    [("size=large", "type"), ("type=huge", "type"), ("type=thumb&size=gigantic", "size")],
)
def test_bad_type_or_size_is_400(api, other_user, query, field):
    thing = ThingFactory(creator=other_user)
    image = ImageFactory(thing=thing)
    for path in (f"/things/{thing.pk}/images?{query}", f"/things/{thing.pk}/images/{image.pk}?{query}"):
        body = assert_error(api.get(path), 400, "VALIDATION_FAILED")
        assert field in body["errors"]


def test_others_see_only_live_images(client_for, user, other_user):
    thing = ThingFactory(creator=user)
    live = ImageFactory(thing=thing, rank=0)
    processing = ImageFactory(thing=thing, rank=1, status=ProcessingStatus.PROCESSING, sizes=[])
    assert [i["id"] for i in client_for(user).get(f"/things/{thing.pk}/images").json()] == [live.pk, processing.pk]
    other = client_for(other_user)
    assert [i["id"] for i in other.get(f"/things/{thing.pk}/images").json()] == [live.pk]
    assert_error(other.get(f"/things/{thing.pk}/images/{processing.pk}"), 404)


def test_a_copys_image_or_another_things_image_is_404_here(api, other_user):
    thing = ThingFactory(creator=other_user)
    elsewhere = ImageFactory(thing=ThingFactory(creator=other_user))
    copy_image = Image.objects.create(
        copy=MakeFactory(), name="make.jpg", key="k", size=1, status=ProcessingStatus.LIVE
    )
    for image in (elsewhere, copy_image):
        assert_error(api.get(f"/things/{thing.pk}/images/{image.pk}"), 404)
    assert api.get(f"/things/{thing.pk}/images").json() == []


def test_patch_sets_rank(api, user):
    thing = ThingFactory(creator=user)
    a, b = ImageFactory(thing=thing, rank=0), ImageFactory(thing=thing, rank=1)
    response = api.patch(f"/things/{thing.pk}/images/{a.pk}", {"rank": 5}, format="json")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    assert [i["id"] for i in api.get(f"/things/{thing.pk}/images").json()] == [b.pk, a.pk]


def test_featuring_an_image_unfeatures_the_others(api, user):
    thing = ThingFactory(creator=user)
    old, new = ImageFactory(thing=thing, featured=True), ImageFactory(thing=thing)
    assert api.patch(f"/things/{thing.pk}/images/{new.pk}", {"featured": True}, format="json").status_code == 200
    assert set(Image.objects.filter(thing=thing, featured=True).values_list("pk", flat=True)) == {new.pk}
    old.refresh_from_db()
    assert old.featured is False
    # Repeating it is a no-op; unfeaturing leaves no featured image.
    assert api.patch(f"/things/{thing.pk}/images/{new.pk}", {"featured": True}, format="json").status_code == 200
    assert api.patch(f"/things/{thing.pk}/images/{new.pk}", {"featured": False}, format="json").status_code == 200
    assert not Image.objects.filter(thing=thing, featured=True).exists()


def test_patch_accepts_a_form_body_and_an_empty_one(api, user):
    thing = ThingFactory(creator=user)
    image = ImageFactory(thing=thing)
    response = api.patch(f"/things/{thing.pk}/images/{image.pk}", "rank=4&featured=true",
                         content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200, response.content
    image.refresh_from_db()
    assert (image.rank, image.featured) == (4, True)
    assert api.patch(f"/things/{thing.pk}/images/{image.pk}").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rank": "first"}, "rank"),
        ({"rank": 1.5}, "rank"),
        ({"rank": True}, "rank"),
        ({"rank": -1}, "rank"),
        ({"featured": "maybe"}, "featured"),
        ({"featured": 7}, "featured"),
        ({"featured": None}, "featured"),
    ],
)
def test_patch_rejects_bad_input(api, user, body, field):
    thing = ThingFactory(creator=user)
    image = ImageFactory(thing=thing, rank=2)
    response = assert_error(api.patch(f"/things/{thing.pk}/images/{image.pk}", body, format="json"), 400,
                            "VALIDATION_FAILED")
    assert field in response["errors"]
    image.refresh_from_db()
    assert image.rank == 2


def test_delete_removes_the_image_and_every_size_from_the_store(api, user, s3, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=user)
    image = ImageFactory(thing=thing)
    keys = [put(s3, image.key, b"JPEG")] + [put(s3, size["key"], b"JPEG") for size in image.sizes]
    with django_capture_on_commit_callbacks(execute=True):
        response = api.delete(f"/things/{thing.pk}/images/{image.pk}")
    assert response.json() == {"ok": True}
    assert not Image.objects.filter(pk=image.pk).exists()
    assert not any(exists(s3, key) for key in keys)
    assert_error(api.delete(f"/things/{thing.pk}/images/{image.pk}"), 404)


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_is_constant(api, user, rows, django_assert_num_queries):
    thing = ThingFactory(creator=user)
    ImageFactory.create_batch(rows, thing=thing)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing; COUNT of its images; the page of images
    with django_assert_num_queries(4):
        response = api.get(f"/things/{thing.pk}/images?type=thumb")
    assert len(response.json()) == rows
