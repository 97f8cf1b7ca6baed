"""A Thing's `default_image` and `thumbnail` (docs/decisions.md: Thing) on the detail and the short Thing of lists."""
from urllib.parse import urlsplit

import pytest

from apps.things.tests.factories import ThingFactory
from apps.uploads.models import ProcessingStatus
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory

pytestmark = pytest.mark.django_db

PLACEHOLDER = "http://testserver/static/things/placeholder.png"


def key_of(url: str) -> str:
    return urlsplit(url).path.split("/", 2)[2]  # path-style: /<bucket>/<key>


def test_default_image_is_the_featured_image(api, other_user):
    thing = ThingFactory(creator=other_user)
    ImageFactory(thing=thing, rank=0)
    featured = ImageFactory(thing=thing, rank=5, featured=True)
    body = api.get(f"/things/{thing.pk}/").json()
    assert body["default_image"]["id"] == featured.pk
    assert set(body["default_image"]) == {"id", "name", "url", "added", "rank", "featured", "sizes"}
    assert body["default_image"]["featured"] is True
    assert body["default_image"]["added"].endswith("+00:00")
    assert {(s["type"], s["size"]) for s in body["default_image"]["sizes"]} >= {("thumb", "medium")}
    thumb_medium = next(s for s in featured.sizes if (s["type"], s["size"]) == ("thumb", "medium"))
    assert key_of(body["thumbnail"]) == thumb_medium["key"]


def test_without_a_featured_image_the_first_by_rank_is_the_default(api, other_user):
    thing = ThingFactory(creator=other_user)
    ImageFactory(thing=thing, rank=2)
    first = ImageFactory(thing=thing, rank=1)
    ImageFactory(thing=thing, rank=0, status=ProcessingStatus.PROCESSING)  # not live: never the default
    assert api.get(f"/things/{thing.pk}/").json()["default_image"]["id"] == first.pk


def test_an_image_without_sizes_shows_its_original_as_thumbnail(api, other_user):
    thing = ThingFactory(creator=other_user)
    image = ImageFactory(thing=thing, sizes=[])
    assert key_of(api.get(f"/things/{thing.pk}/").json()["thumbnail"]) == image.key


def test_without_images_the_thumbnail_is_the_first_files_render_else_the_placeholder(api, other_user):
    thing = ThingFactory(creator=other_user)
    assert api.get(f"/things/{thing.pk}/").json()["thumbnail"] == PLACEHOLDER
    ThingFileFactory(thing=thing)  # live, not rendered
    ThingFileFactory(thing=thing, thumbnail_key="renders/a.png", status=ProcessingStatus.PROCESSING)
    ThingFileFactory(thing=thing, thumbnail_key="renders/b.png")
    body = api.get(f"/things/{thing.pk}/").json()
    assert body["default_image"] is None
    assert key_of(body["thumbnail"]) == "renders/b.png"


def test_the_short_thing_of_lists_shows_the_thumbnail(api, other_user):
    with_image, without = ThingFactory(creator=other_user), ThingFactory(creator=other_user)
    image = ImageFactory(thing=with_image, sizes=[])
    rows = {row["id"]: row for row in api.get(f"/users/{other_user.username}/things").json()}
    assert key_of(rows[with_image.pk]["thumbnail"]) == image.key
    assert rows[without.pk]["thumbnail"] == PLACEHOLDER


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_is_constant_with_images(api, other_user, rows, django_assert_num_queries):
    for thing in ThingFactory.create_batch(rows, creator=other_user):
        ImageFactory(thing=thing)
        ThingFileFactory(thing=thing, thumbnail_key="r.png")
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; the user; COUNT; the page of Things (images and renders are subqueries of it)
    with django_assert_num_queries(4):
        response = api.get(f"/users/{other_user.username}/things")
    assert len(response.json()) == rows
    assert all(row["thumbnail"] != PLACEHOLDER for row in response.json())


def test_detail_query_count_stays_two_with_an_image(api, other_user, django_assert_num_queries):
    thing = ThingFactory(creator=other_user, tags=["a"])
    ImageFactory(thing=thing)
    api.get("/users/me/")
    # token; the Thing with creator, category, flags, tag names, default image and render (subqueries)
    with django_assert_num_queries(2):
        assert api.get(f"/things/{thing.pk}/").json()["default_image"] is not None
