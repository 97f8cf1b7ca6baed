"""docs/decisions.md, Requests (compat): round-trip PATCH. Clients GET an object, change one field and PATCH
back every field they read. Read-only fields (ids, URLs, counts, timestamps, `creator`, nested objects)
and sub-collections given as their URL string are ignored, `license` is accepted as the display name it
was read as, and only a field that really changes is validated and written (apps.core.pipeline.api.parse_patch).

Each test below is the client's round trip, on the wire: GET, change one field, PATCH the whole body,
then check that exactly that field changed.
"""
import pytest

from apps.accounts.models import User
from apps.comments.tests.factories import CommentFactory
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.makes.tests.factories import MakeFactory, make_image
from apps.orders.tests.factories import OrderFactory
from apps.thingcollections.models import Collection
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from apps.uploads.models import Image
from apps.uploads.tests.file_factories import ImageFactory

pytestmark = pytest.mark.django_db

# Fields a successful write moves by itself.
MOVES_ON_WRITE = {"modified"}


def round_trip(api, path: str, **changes) -> tuple[dict, dict]:
    """GET `path`, PATCH back everything read with `changes` applied; (what was read, the answer)."""
    read = api.get(path)
    assert read.status_code == 200, read.content
    read = read.json()
    response = api.patch(path, {**read, **changes}, format="json")
    assert response.status_code == 200, response.content
    return read, response.json() if response.content else {}


def changed(before: dict, after: dict) -> set[str]:
    return {key for key in after if before.get(key) != after[key]} - MOVES_ON_WRITE


# --- Things ----------------------------------------------------------------------------------------


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, tags=["hook", "wall_mount"], category=category("art"), license="cc-nd",
                        is_wip=True)


def test_a_thing_patched_back_whole_changes_only_the_changed_field(api, thing):
    read, after = round_trip(api, f"/things/{thing.pk}/", name="Wall hook, v2")

    assert changed(read, after) == {"name"}
    assert read["tags"].startswith("http") and read["license"] == "Creative Commons - Attribution - No Derivatives"
    thing.refresh_from_db()
    assert (thing.name, thing.license, thing.category.slug, thing.is_wip) == ("Wall hook, v2", "cc-nd", "art", True)
    assert [tag.name for tag in thing.tags.order_by("thingtag__position")] == ["hook", "wall_mount"]


def test_a_thing_license_is_accepted_as_its_display_name(api, thing):
    _, after = round_trip(api, f"/things/{thing.pk}/", license="BSD License")

    assert after["license"] == "BSD License"
    assert Thing.objects.get(pk=thing.pk).license == "bsd"


def test_a_thing_license_display_name_that_names_no_license_is_400(api, thing):
    read = api.get(f"/things/{thing.pk}/").json()
    response = api.patch(f"/things/{thing.pk}/", {**read, "license": "All rights reserved"}, format="json")
    assert response.status_code == 400
    assert response.json()["type"] == "VALIDATION_FAILED" and "license" in response.json()["errors"]


def test_tags_sent_as_a_list_still_replace_the_tags_in_a_round_trip(api, thing):
    _, after = round_trip(api, f"/things/{thing.pk}/", tags=["hook", "steel"])
    assert after["tag_names"] == ["hook", "steel"]


def test_an_unchanged_value_that_no_longer_passes_the_rules_is_not_validated(api, thing):
    # Written before today's limit (or by an admin): a round trip must not be refused for it...
    Thing.objects.filter(pk=thing.pk).update(description="x" * 50_001)
    _, after = round_trip(api, f"/things/{thing.pk}/", is_wip=False)
    assert after["is_wip"] is False
    # ...while changing it to something that does not pass still is.
    read = api.get(f"/things/{thing.pk}/").json()
    response = api.patch(f"/things/{thing.pk}/", {**read, "description": "y" * 50_001}, format="json")
    assert response.status_code == 400 and "description" in response.json()["errors"]


def test_nested_objects_and_read_only_fields_sent_changed_are_ignored(api, thing, other_user):
    read = api.get(f"/things/{thing.pk}/").json()
    tampered = {
        **read,
        "id": 1, "like_count": 999, "is_published": False, "added": "2001-01-01T00:00:00+00:00",
        "creator": {**read["creator"], "id": other_user.pk, "name": other_user.username},
        "default_image": {"id": 5, "url": "http://example.com/x.png"},
        "files": "http://example.com/elsewhere/files", "tags_url": "http://example.com/tags",
    }
    response = api.patch(f"/things/{thing.pk}/", tampered, format="json")
    assert response.status_code == 200, response.content
    assert changed(read, response.json()) == set()
    thing.refresh_from_db()
    assert (thing.creator_id, thing.like_count, thing.is_published) == (read["creator"]["id"], 0, True)


def test_a_round_trip_that_changes_nothing_writes_nothing(api, thing):
    read = api.get(f"/things/{thing.pk}/").json()
    before = Thing.objects.get(pk=thing.pk).modified
    assert api.patch(f"/things/{thing.pk}/", read, format="json").json() == read
    assert Thing.objects.get(pk=thing.pk).modified == before


# --- users -----------------------------------------------------------------------------------------


def test_a_user_patched_back_whole_changes_only_the_changed_field(api, user):
    User.objects.filter(pk=user.pk).update(bio="b" * 4001, default_license="cc-nc")  # over today's limit
    read, after = round_trip(api, "/users/me/", location="Lisbon")

    assert changed(read, after) == {"location"}
    user.refresh_from_db()
    assert (user.location, user.bio, user.default_license) == ("Lisbon", "b" * 4001, "cc-nc")


def test_a_user_default_license_is_accepted_as_a_display_name(api, user):
    _, after = round_trip(api, "/users/me/", default_license="Creative Commons - Public Domain Dedication")
    assert after["default_license"] == "pd0"


# --- collections -----------------------------------------------------------------------------------


def test_a_collection_patched_back_whole_changes_only_the_changed_field(api, user, application):
    collection = CollectionFactory(creator=user, created_by_app=application, name="Hooks", description="")
    CollectionThingFactory(collection=collection)
    read, after = round_trip(api, f"/collections/{collection.pk}/", description="Every hook I printed.")

    assert read["featured_thing"]["id"] == read["featured_thing_id"]  # nested object, sent back: ignored
    assert changed(read, after) == {"description"}
    collection.refresh_from_db()
    assert (collection.name, collection.description) == ("Hooks", "Every hook I printed.")


def test_a_collection_round_trip_is_refused_for_another_apps_collection_before_anything(api, user):
    collection = CollectionFactory(creator=user, created_by_app=None)  # made on the site
    read = api.get(f"/collections/{collection.pk}/").json()
    assert api.patch(f"/collections/{collection.pk}/", read, format="json").status_code == 403
    assert Collection.objects.get(pk=collection.pk).name == collection.name


# --- copies (makes) --------------------------------------------------------------------------------


def test_a_copy_patched_back_whole_changes_only_the_changed_field(api, user):
    make = MakeFactory(creator=user, description="First try.")
    read, after = round_trip(api, f"/copies/{make.pk}/", description="Second try, better bridging.")

    assert changed(read, after) == {"description"}
    assert read["thing"]["id"] == make.thing_id  # the nested Thing went back too, and was ignored
    make.refresh_from_db()
    assert make.description == "Second try, better bridging."


def test_a_copy_image_patched_back_whole_changes_only_the_changed_field(api, user):
    make = MakeFactory(creator=user)
    image = make_image(make, rank=2)
    path = f"/copies/{make.pk}/images/{image.pk}"
    read = api.get(path).json()
    response = api.patch(path, {**read, "featured": True}, format="json")
    assert response.json() == {"ok": True}
    image.refresh_from_db()
    assert (image.featured, image.rank) == (True, 2)


# --- every other PATCH of a readable object -------------------------------------------------------


def test_a_thing_image_patched_back_whole_changes_only_the_changed_field(api, thing):
    image = ImageFactory(thing=thing, rank=3)
    path = f"/things/{thing.pk}/images/{image.pk}"
    read = api.get(path).json()
    assert api.patch(path, {**read, "featured": True}, format="json").json() == {"ok": True}
    assert Image.objects.values_list("featured", "rank").get(pk=image.pk) == (True, 3)


def test_a_comment_patched_back_whole_changes_only_its_body(api, user):
    comment = CommentFactory(user=user, body="Nice.")
    read, after = round_trip(api, f"/comments/{comment.pk}/", body="Very nice.")
    assert changed(read, after) == {"body", "body_html"}


def test_a_comment_patched_back_unchanged_is_a_no_op_but_a_body_is_still_required(api, user):
    comment = CommentFactory(user=user, body="Nice.")
    read = api.get(f"/comments/{comment.pk}/").json()
    response = api.patch(f"/comments/{comment.pk}/", read, format="json")
    assert (response.status_code, response.json()) == (200, read)
    assert api.patch(f"/comments/{comment.pk}/", {"user": read["user"]}, format="json").status_code == 400


def test_a_group_and_a_topic_patched_back_whole_change_only_the_changed_field(api, user):
    group = GroupFactory(creator=user)
    read, after = round_trip(api, f"/groups/{group.pk}/", description="People who print hooks.")
    assert changed(read, after) == {"description"}
    topic = GroupTopicFactory(group=group, user=user)
    read, after = round_trip(api, f"/group-topics/{topic.pk}/", name="Which filament?")
    assert changed(read, after) == {"name"}


def test_an_order_patched_back_whole_changes_only_the_changed_field(client_for, application):
    seller = application.user
    order = OrderFactory(application=application, status="paid")
    api = client_for(seller)
    read, after = round_trip(api, f"/orders/{order.pk}/", note="Ships Monday.")
    # `status: "paid"` and `is_shipped: "false"` went back as read: unchanged, so not refused.
    assert changed(read, after) - {"modified_date"} == {"note"}
