"""GET/POST /things/{id}/copies (spec §4.2: "array of copies with their images"; the copy image upload)."""
import pytest

from apps.accounts.tests.factories import UserFactory
from apps.makes.models import Make
from apps.makes.tests.factories import MakeFactory, make_image
from tests.support.api import assert_error, ids
from apps.makes.tests.helpers import COPY_KEYS, IMAGE_KEYS, SHORT_THING_KEYS
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import ProcessingStatus, Upload
from apps.uploads.flow.serializers import DESCRIPTOR_FIELDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(other_user):
    return ThingFactory(creator=other_user)


# --- GET ---------------------------------------------------------------------------------------------


def test_get_lists_the_things_copies_newest_first_each_with_its_images(api, user, thing):
    older = MakeFactory(thing=thing)
    newer = MakeFactory(thing=thing, creator=user)
    second, first = make_image(newer, rank=1), make_image(newer, rank=0)
    MakeFactory()  # another Thing's copy

    response = api.get(f"/things/{thing.pk}/copies")
    assert ids(response) == [newer.pk, older.pk]
    assert 'rel="last"' in response["Link"]
    body = response.json()
    assert set(body[0]) == COPY_KEYS | {"images"}
    assert [i["id"] for i in body[0]["images"]] == [first.pk, second.pk]
    assert set(body[0]["images"][0]) == IMAGE_KEYS
    assert body[1]["images"] == []
    assert set(body[0]["thing"]) == SHORT_THING_KEYS
    assert body[0]["thing"]["id"] == thing.pk
    assert body[0]["creator"]["id"] == user.pk
    assert body[0]["url"] == f"http://testserver/copies/{newer.pk}"
    assert body[0]["public_url"] == f"http://testserver/make:{newer.pk}"
    assert body[0]["images_url"] == f"http://testserver/copies/{newer.pk}/images"


def test_get_shows_images_still_processing_only_to_the_copys_creator(client_for, user, other_user, thing):
    make = MakeFactory(thing=thing, creator=user)
    live = make_image(make, rank=0)
    processing = make_image(make, rank=1, status=ProcessingStatus.PROCESSING, sizes=[])

    def image_ids(client):
        return [i["id"] for i in client.get(f"/things/{thing.pk}/copies").json()[0]["images"]]

    assert image_ids(client_for(user)) == [live.pk, processing.pk]
    assert image_ids(client_for(other_user)) == [live.pk]


def test_get_leaves_out_hidden_copies_except_for_staff(client_for, api, thing):
    shown = MakeFactory(thing=thing)
    hidden = MakeFactory(thing=thing, is_hidden=True, hidden_reason="spam")
    assert ids(api.get(f"/things/{thing.pk}/copies")) == [shown.pk]
    staff = client_for(UserFactory(is_staff=True))
    assert ids(staff.get(f"/things/{thing.pk}/copies")) == [hidden.pk, shown.pk]


@pytest.mark.parametrize("rows", [1, 30])
def test_get_query_count_does_not_grow(api, thing, rows, django_assert_num_queries):
    for make in MakeFactory.create_batch(rows, thing=thing):
        make_image(make)
        make_image(make, rank=1)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing; COUNT copies; SELECT copies (creator, Thing, images and is_liked in the row); images
    with django_assert_num_queries(5):
        body = api.get(f"/things/{thing.pk}/copies").json()
    assert len(body) == rows and all(len(copy["images"]) == 2 for copy in body)


# --- POST: start the upload of a new copy's image ----------------------------------------------------


def test_post_answers_the_descriptor_of_a_new_copys_image(api, user, thing):
    response = api.post(f"/things/{thing.pk}/copies", {"filename": "my print.jpg"}, format="json")
    assert response.status_code == 200, response.content
    descriptor = response.json()
    assert list(descriptor["fields"]) == list(DESCRIPTOR_FIELDS)
    upload = Upload.objects.get()
    assert (upload.kind, upload.target_id, upload.owner_id, upload.filename) == (
        Upload.Kind.COPY_NEW, thing.pk, user.pk, "my print.jpg"
    )
    assert descriptor["fields"]["success_action_redirect"] == f"http://testserver/files/{upload.pk}/finalize"
    assert descriptor["fields"]["Content-Type"] == "image/jpeg"
    assert not Make.objects.exists()  # created when the upload is finalized


def test_post_of_ones_own_published_thing_is_fine(api, user):
    own = ThingFactory(creator=user)
    assert api.post(f"/things/{own.pk}/copies", {"filename": "a.png"}, format="json").status_code == 200


def test_post_of_ones_own_draft_is_400(api, user):
    draft = ThingFactory(creator=user, is_published=False)
    body = assert_error(api.post(f"/things/{draft.pk}/copies", {"filename": "a.png"}, format="json"), 400)
    assert body["error"] == "Only a published Thing can have copies."
    assert not Upload.objects.exists()


def test_post_for_a_hidden_thing_is_404(api, other_user):
    hidden = ThingFactory(creator=other_user, is_hidden=True, hidden_reason="spam")
    assert_error(api.post(f"/things/{hidden.pk}/copies", {"filename": "a.png"}, format="json"), 404)


@pytest.mark.parametrize(
    "body",
    [{}, {"filename": ""}, {"filename": "model.stl"}, {"filename": "x" * 300 + ".png"}, {"filename": ["a.png"]}],
)
def test_post_bad_input_is_400(api, thing, body):
    body = assert_error(api.post(f"/things/{thing.pk}/copies", body, format="json"), 400, "VALIDATION_FAILED")
    assert "filename" in body["errors"]
    assert not Upload.objects.exists()
