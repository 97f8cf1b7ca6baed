"""GET /copies/, GET/PATCH/DELETE /copies/{id}/ (spec §4.4)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from apps.makes import services
from apps.makes.models import Make, MakeLike
from apps.makes.tests.factories import MakeFactory, make_image
from tests.support.api import assert_error, ids
from apps.makes.tests.helpers import COPY_KEYS, ISO, SHORT_THING_KEYS, USER_SUMMARY_KEYS
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image
from apps.uploads.tests.file_factories import exists, put

pytestmark = pytest.mark.django_db


@pytest.fixture
def make(other_user):
    return MakeFactory(creator=other_user)


@pytest.fixture
def own(user):
    thing = ThingFactory()
    return services.make_create(thing=thing, creator=user, description="First try.")


# --- GET /copies/ ------------------------------------------------------------------------------------


def test_latest_lists_visible_copies_newest_first(api, user, other_user):
    older, newer = MakeFactory(), MakeFactory()
    MakeFactory(is_hidden=True, hidden_reason="spam")
    MakeFactory(thing=ThingFactory(creator=other_user, is_published=False))  # someone else's draft
    own_draft = MakeFactory(thing=ThingFactory(creator=user, is_published=False))
    response = api.get("/copies/")
    assert ids(response) == [own_draft.pk, newer.pk, older.pk]
    assert 'rel="first"' in response["Link"]
    assert ids(api.get("/copies")) == [own_draft.pk, newer.pk, older.pk]


def test_latest_paginates(api):
    makes = MakeFactory.create_batch(3)
    response = api.get("/copies/", {"per_page": 2, "page": 2})
    assert ids(response) == [makes[0].pk]
    assert 'rel="prev"' in response["Link"]


@pytest.mark.parametrize("rows", [1, 30])
def test_latest_query_count_does_not_grow(api, user, rows, django_assert_num_queries):
    for make in MakeFactory.create_batch(rows):
        make_image(make)
        MakeLike.objects.create(user=user, make=make)
    api.get("/users/me/")
    # token; COUNT copies; SELECT copies (creator, Thing and its creator joined; thumbnails, is_liked inline)
    with django_assert_num_queries(3):
        body = api.get("/copies/").json()
    assert len(body) == rows and all(copy["is_liked"] for copy in body)


# --- GET /copies/{id}/ -------------------------------------------------------------------------------


def test_get_answers_the_copy(api, user, make):
    featured = make_image(make, rank=3, featured=True)
    make_image(make, rank=0)
    MakeLike.objects.create(user=user, make=make)
    Make.objects.filter(pk=make.pk).update(like_count=1)
    response = api.get(f"/copies/{make.pk}/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == COPY_KEYS
    assert (body["id"], body["description"], body["like_count"], body["is_liked"], body["comment_count"]) == (
        make.pk, make.description, 1, True, 0
    )
    assert ISO.match(body["added"]) and ISO.match(body["modified"])
    assert set(body["creator"]) == USER_SUMMARY_KEYS and body["creator"]["id"] == make.creator_id
    assert set(body["thing"]) == SHORT_THING_KEYS and body["thing"]["id"] == make.thing_id
    # The featured image is the copy's thumbnail (its thumb, signed by the store).
    assert f"{featured.key}.thumb_medium.jpg" in body["thumbnail"]
    assert api.get(f"/copies/{make.pk}").json()["id"] == make.pk


def test_a_copy_without_images_shows_the_placeholder(api, make):
    assert api.get(f"/copies/{make.pk}/").json()["thumbnail"].endswith("things/placeholder.png")


def test_get_missing_or_invisible_is_404(api, other_user):
    hidden = MakeFactory(is_hidden=True, hidden_reason="spam")
    of_a_draft = MakeFactory(thing=ThingFactory(creator=other_user, is_published=False))
    for copy_id in (999999, hidden.pk, of_a_draft.pk, 2**63):
        assert_error(api.get(f"/copies/{copy_id}/"), 404, "NOT_FOUND")


def test_a_hidden_copy_is_404_to_its_own_creator_but_staff_see_it(client_for, user):
    hidden = MakeFactory(creator=user, is_hidden=True, hidden_reason="spam")
    assert_error(client_for(user).get(f"/copies/{hidden.pk}/"), 404)
    assert client_for(UserFactory(is_staff=True)).get(f"/copies/{hidden.pk}/").status_code == 200


def test_a_copy_of_a_hidden_thing_is_404(api):
    make = MakeFactory(thing=ThingFactory(is_hidden=True, hidden_reason="spam"))
    assert_error(api.get(f"/copies/{make.pk}/"), 404)


def test_get_query_count(api, make, django_assert_num_queries):
    api.get("/users/me/")
    with django_assert_num_queries(2):  # token; the copy with everything it shows
        assert api.get(f"/copies/{make.pk}/").status_code == 200


# --- PATCH /copies/{id}/ -----------------------------------------------------------------------------


def test_patch_changes_the_description(api, own):
    response = api.patch(f"/copies/{own.pk}/", {"description": "Second layer was off."}, format="json")
    assert response.status_code == 200, response.content
    assert set(response.json()) == COPY_KEYS
    assert response.json()["description"] == "Second layer was off."
    own.refresh_from_db()
    assert own.description == "Second layer was off."


def test_patch_may_blank_the_description_and_an_empty_body_changes_nothing(api, own):
    assert api.patch(f"/copies/{own.pk}/", {"description": ""}, format="json").json()["description"] == ""
    assert api.patch(f"/copies/{own.pk}/", data="", content_type="application/json").status_code == 200
    own.refresh_from_db()
    assert own.description == ""


@pytest.mark.parametrize("description", [42, None, ["a"], "x" * 10001])
def test_patch_bad_input_is_400(api, own, description):
    body = assert_error(
        api.patch(f"/copies/{own.pk}/", {"description": description}, format="json"), 400, "VALIDATION_FAILED"
    )
    assert "description" in body["errors"]


# --- DELETE /copies/{id}/ ----------------------------------------------------------------------------


def test_delete_removes_the_copy_its_images_and_lowers_make_count(
    api, own, s3, django_capture_on_commit_callbacks
):
    image = make_image(own)
    for key in [image.key, *(size["key"] for size in image.sizes)]:
        put(s3, key, b"jpeg")
    assert Thing.objects.get(pk=own.thing_id).make_count == 1
    with django_capture_on_commit_callbacks(execute=True):
        response = api.delete(f"/copies/{own.pk}/")
    assert response.status_code == 200
    assert response.content == b""
    assert not Make.objects.filter(pk=own.pk).exists()
    assert not Image.objects.filter(pk=image.pk).exists()
    assert Thing.objects.get(pk=own.thing_id).make_count == 0
    assert not exists(s3, image.key)
    assert not any(exists(s3, size["key"]) for size in image.sizes)


def test_the_things_creator_cannot_delete_someone_elses_copy_of_it(client_for, user, other_user):
    make = MakeFactory(thing=ThingFactory(creator=user), creator=other_user)
    assert_error(client_for(user).delete(f"/copies/{make.pk}/"), 403)
