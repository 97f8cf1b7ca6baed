"""The cached Thing body and short form (apps.things.bodycache, issue 17): a warm cache answers without
reading the Thing, and after every kind of write the body read back is exactly the one built without the
cache (every dependency of the body: the Thing's fields, tags, images, default image, files, counters,
creator's name and avatar, moderation, delete, privacy, publication)."""
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.services import user_image_replace
from apps.comments.services import comment_create
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.makes.services import make_create
from apps.thingcollections.services import collection_add_thing, collection_create
from apps.things import services
from apps.things.models import Category, Tag, Thing
from apps.things.tests.factories import ThingFactory, category
from apps.uploads.files.services import file_delete, image_delete, image_reorder, image_update
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _body_cache_on(settings):
    settings.THING_BODY_CACHE_SECONDS = 600


@pytest.fixture
def thing(other_user):
    return ThingFactory(creator=other_user, category=category("replacement-parts"), tags=["b", "a"])


def _thing_reads(queries) -> int:
    """Statements building a Thing (not the one narrow check of its version, bodycache.thing_state, alone
    or read with the token's row: ReadWithToken)."""
    return sum('"things_thing"' in q["sql"] and q["sql"].lstrip().startswith("SELECT")
               and "SELECT t.version" not in q["sql"] for q in queries)


def _version_checks(queries) -> int:
    return sum("SELECT t.version" in q["sql"] for q in queries)


def cached_body(api, thing_id, path="/things/{}/"):
    response = api.get(path.format(thing_id))
    return response.status_code, response.content


def uncached_body(api, settings, thing_id, path="/things/{}/"):
    settings.THING_BODY_CACHE_SECONDS = 0
    try:
        response = api.get(path.format(thing_id))
        return response.status_code, response.content
    finally:
        settings.THING_BODY_CACHE_SECONDS = 600


def warm(api, thing_id) -> None:
    """Read the body into the cache and prove the next read is answered from it."""
    assert api.get(f"/things/{thing_id}/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert api.get(f"/things/{thing_id}/").status_code == 200
    # Issue 24: the cached body is checked against the version the database owns, by one narrow statement.
    assert _thing_reads(queries.captured_queries) == 0
    assert _version_checks(queries.captured_queries) == 1


def assert_fresh(api, settings, thing_id) -> dict:
    """The body read through the cache is byte for byte the one built without it."""
    got = cached_body(api, thing_id)
    assert got == uncached_body(api, settings, thing_id)
    return json.loads(got[1]) if got[0] == 200 else {}


# --- the cache is used, and answers byte for byte ---------------------------------------------------


def test_a_warm_body_is_byte_identical_and_reads_no_thing_row(api, settings, thing):
    ImageFactory(thing=thing, featured=True)
    warm(api, thing.pk)
    assert cached_body(api, thing.pk) == uncached_body(api, settings, thing.pk)


def test_is_liked_and_is_watched_stay_the_callers_own(api, client_for, settings, user, other_user, thing,
                                                      django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):  # as the API's like and toggle-watch do
        services.thing_like(user=user, thing=thing)
        services.thing_toggle_watch(user=user, thing=thing)
    mine = api.get(f"/things/{thing.pk}/").json()
    assert (mine["is_liked"], mine["is_watched"]) == (True, True)
    theirs = client_for(other_user).get(f"/things/{thing.pk}/").json()
    assert (theirs["is_liked"], theirs["is_watched"]) == (False, False)


def test_a_draft_is_never_cached_and_keeps_its_access_matrix(api, client_for, settings, user, other_user):
    draft = ThingFactory(creator=other_user, is_published=False)
    assert client_for(other_user).get(f"/things/{draft.pk}/").status_code == 200  # the owner
    assert api.get(f"/things/{draft.pk}/").status_code == 403  # anyone else, still


def test_the_short_form_of_lists_is_byte_identical(api, settings, thing):
    ImageFactory(thing=thing)
    ThingFactory.create_batch(3)
    first = cached_body(api, None, "/newest/")
    again = cached_body(api, None, "/newest/")
    assert first == again == uncached_body(api, settings, None, "/newest/")


# --- every dependency of the body -------------------------------------------------------------------


def test_title_and_text(api, client_for, settings, other_user, thing, django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(other_user).patch(
            f"/things/{thing.pk}/", {"name": "Renamed", "instructions": "New"}, format="json"
        ).status_code == 200
    body = assert_fresh(api, settings, thing.pk)
    assert (body["name"], body["instructions"]) == ("Renamed", "New")


def test_tags(api, client_for, settings, other_user, thing, django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        client_for(other_user).patch(f"/things/{thing.pk}/", {"tags": ["c"]}, format="json")
    assert assert_fresh(api, settings, thing.pk)["tag_names"] == ["c"]


def test_a_tag_and_a_category_renamed(api, settings, thing, django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        tag = Tag.objects.get(name="b")
        tag.name = "bee"
        tag.save()
        cat = Category.objects.get(slug="replacement-parts")
        cat.name = "Spare Parts"
        cat.save()
    body = assert_fresh(api, settings, thing.pk)
    assert (body["tag_names"], body["category"]) == (["bee", "a"], "Spare Parts")


def test_images_and_the_default_image(api, settings, thing, django_capture_on_commit_callbacks):
    first, second = ImageFactory(thing=thing, rank=0), ImageFactory(thing=thing, rank=1)
    warm(api, thing.pk)
    assert api.get(f"/things/{thing.pk}/").json()["default_image"]["id"] == first.pk
    with django_capture_on_commit_callbacks(execute=True):
        image_update(image=second, featured=True)
    assert assert_fresh(api, settings, thing.pk)["default_image"]["id"] == second.pk
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        image_delete(image=second)
    assert assert_fresh(api, settings, thing.pk)["default_image"]["id"] == first.pk
    third = ImageFactory(thing=thing, rank=5)
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        image_reorder(thing=thing, image_ids=[third.pk, first.pk])
    assert assert_fresh(api, settings, thing.pk)["default_image"]["id"] == third.pk


def test_a_new_image_processed(api, settings, thing, django_capture_on_commit_callbacks):
    from apps.uploads.models import ProcessingStatus
    from apps.uploads.processing.services import _image_finish

    image = ImageFactory(thing=thing, status=ProcessingStatus.PROCESSING)
    warm(api, thing.pk)
    assert api.get(f"/things/{thing.pk}/").json()["default_image"] is None
    with django_capture_on_commit_callbacks(execute=True):
        _image_finish(image.pk, status=ProcessingStatus.LIVE)
    assert assert_fresh(api, settings, thing.pk)["default_image"]["id"] == image.pk


def test_files(api, settings, thing, django_capture_on_commit_callbacks):
    file = ThingFileFactory(thing=thing, thumbnail_key="things/x/part.stl.thumb.png")
    Thing.objects.filter(pk=thing.pk).update(file_count=1)
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        file_delete(file=file)
    assert assert_fresh(api, settings, thing.pk)["file_count"] == 0


def test_like_make_comment_collect_counters(api, user, settings, thing, django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"/things/{thing.pk}/likes").status_code == 200
    assert assert_fresh(api, settings, thing.pk)["like_count"] == 1
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        make_create(thing=thing, creator=user)
    assert assert_fresh(api, settings, thing.pk)["make_count"] == 1
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        comment_create(user=user, target=thing, body="Nice")
    assert assert_fresh(api, settings, thing.pk)["comment_count"] == 1
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        collection = collection_create(creator=user, name="Mine")
        collection_add_thing(collection=collection, thing=thing, user=user)
    assert assert_fresh(api, settings, thing.pk)["collect_count"] == 1


def test_the_creators_name_and_avatar(api, client_for, settings, other_user, thing,
                                      django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    short = cached_body(api, None, "/newest/")
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(other_user).patch("/users/me", {"first_name": "Zed"}, format="json").status_code == 200
    assert assert_fresh(api, settings, thing.pk)["creator"]["first_name"] == "Zed"
    assert cached_body(api, None, "/newest/") != short
    assert cached_body(api, None, "/newest/") == uncached_body(api, settings, None, "/newest/")
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        user_image_replace(user_id=other_user.pk, field="avatar", key="avatars/zed.png")
    assert "avatars/zed.png" in assert_fresh(api, settings, thing.pk)["creator"]["thumbnail"]


def test_hide_and_unhide(api, settings, thing, django_capture_on_commit_callbacks):
    from apps.accounts.tests.factories import UserFactory

    moderator = UserFactory(is_staff=True)
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        moderation_hide(obj=thing, reason="spam", by=moderator)
        services.thing_hidden_changed(thing=thing)
    assert cached_body(api, thing.pk)[0] == 404
    assert_fresh(api, settings, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        moderation_unhide(obj=thing)
        services.thing_hidden_changed(thing=thing)
    assert assert_fresh(api, settings, thing.pk)["id"] == thing.pk


def test_delete(api, client_for, settings, other_user, thing, django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert client_for(other_user).delete(f"/things/{thing.pk}/").status_code == 200
    assert cached_body(api, thing.pk)[0] == 404


def test_a_deleted_creator_takes_the_things_with_them(api, settings, other_user, thing,
                                                     django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        other_user.delete()  # the Things cascade
    assert cached_body(api, thing.pk)[0] == 404


def test_privacy_and_wip(api, client_for, settings, other_user, thing, django_capture_on_commit_callbacks):
    warm(api, thing.pk)
    with django_capture_on_commit_callbacks(execute=True):
        thing.is_wip = True
        thing.save(update_fields=["is_wip"])  # the admin's change form
    assert assert_fresh(api, settings, thing.pk)["is_wip"] is True
    with django_capture_on_commit_callbacks(execute=True):
        thing.is_private = True
        thing.save(update_fields=["is_private"])
    # Issue 22 #5: a private Thing is its creator's alone.
    assert cached_body(api, thing.pk)[0] == 404
    assert assert_fresh(api, settings, thing.pk) == {}
    body = assert_fresh(client_for(other_user), settings, thing.pk)
    assert (body["is_private"], body["is_wip"]) == (True, True)


def test_publication(api, client_for, settings, other_user, django_capture_on_commit_callbacks):
    draft = ThingFactory(creator=other_user, is_published=False)
    ThingFileFactory(thing=draft)
    Thing.objects.filter(pk=draft.pk).update(file_count=1)
    owner = client_for(other_user)
    assert owner.get(f"/things/{draft.pk}/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        owner.post(f"/things/{draft.pk}/publish")
    assert Thing.objects.get(pk=draft.pk).is_published
    assert assert_fresh(api, settings, draft.pk)["is_published"] is True


# --- search pages from cached short forms -----------------------------------------------------------


def test_search_pages_are_byte_identical_and_drop_a_thing_hidden_after_its_window_was_cached(
    api, settings, django_capture_on_commit_callbacks
):
    from apps.accounts.tests.factories import UserFactory
    from apps.search.services import thing_index_search

    things = ThingFactory.create_batch(3, name="Gearbox housing")
    thing_index_search(thing_ids=[t.pk for t in things])
    first = cached_body(api, None, "/search/gearbox/")
    assert first[0] == 200 and len(json.loads(first[1])) == 3
    again = cached_body(api, None, "/search/gearbox/")
    assert again == first == uncached_body(api, settings, None, "/search/gearbox/")
    # Hidden after the window and the short forms were cached: gone from the page at once.
    moderator = UserFactory(is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        moderation_hide(obj=things[0], reason="spam", by=moderator)
    hits = json.loads(cached_body(api, None, "/search/gearbox/")[1])
    assert sorted(h["id"] for h in hits) == sorted(t.pk for t in things[1:])
