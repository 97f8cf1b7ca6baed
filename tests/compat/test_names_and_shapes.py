"""DECISIONS.md, Names and shapes (compat), on the wire: the path and field aliases, the `Other`
category, the Collection fields of the original's published schema, File `meta_data`/`geometry`, and
mesh renders as images of their Thing. The spec's own fields stay (Things keep `files`, `tags`, …)."""
import importlib
from urllib.parse import urlsplit

import pytest
import requests
from django.apps import apps as django_apps

from apps.accounts.services import message_send
from apps.comments.tests.factories import join
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.things.models import Category
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image
from apps.uploads.tests.upload_helpers import png_bytes, stl_bytes, store_post

pytestmark = pytest.mark.django_db


# --- aliases ---------------------------------------------------------------------------------------


def test_the_per_user_unread_message_count_answers_for_ones_own_name_only(api, user, other_user):
    message_send(sender=other_user, to=user.username, body="Hello")
    own = api.get(f"/users/{user.username}/unread-message-count")
    assert (own.status_code, own.json()) == (200, api.get("/users/unread-message-count").json())
    assert own.json() == {"count": 1}
    assert api.get("/users/me/unread-message-count/").json() == {"count": 1}
    assert api.get(f"/users/{other_user.username}/unread-message-count").status_code == 403
    assert api.get("/users/nobody-at-all/unread-message-count").status_code == 404


def test_collections_all_takes_the_literal_all(api, user):
    CollectionFactory.create_batch(3, creator=user)
    everything = api.get(f"/users/{user.username}/collections/all", {"per_page": 1})
    assert (everything.status_code, len(everything.json())) == (200, 3)
    assert "Link" not in everything
    assert everything.json() == api.get(f"/users/{user.username}/collections/true", {"per_page": 1}).json()


def test_all_collected_things_answers_the_things_under_both_names(api, user):
    entry = CollectionThingFactory(collection=CollectionFactory(creator=user))
    body = api.get(f"/users/{user.username}/all-collected-things").json()
    assert body["count"] == 1
    assert body["collected_things"] == body["things"] and body["things"][0]["id"] == entry.thing_id


def test_grouptopics_paths_answer_as_their_group_topics_paths(api, user):
    group = GroupFactory(creator=user)
    topic = GroupTopicFactory(group=group, user=user)
    join(group, user)
    assert api.get(f"/grouptopics/{topic.pk}").json() == api.get(f"/group-topics/{topic.pk}/").json()
    assert api.patch(f"/grouptopics/{topic.pk}/", {"name": "Renamed"}, format="json").json()["name"] == "Renamed"
    assert api.post(f"/grouptopics/{topic.pk}/pin").json()["pinned"] is True
    comment = api.post(f"/grouptopics/{topic.pk}/comments", {"body": "Hi"}, format="json")
    assert comment.status_code == 200
    listed = api.get(f"/grouptopics/{topic.pk}/comments").json()
    assert [c["id"] for c in listed] == [comment.json()["id"]]
    assert api.get(f"/grouptopics/{topic.pk}/threaded-comments").status_code == 200
    assert api.get("/grouptopics/987654321/").status_code == 404


# --- the Other category ------------------------------------------------------------------------------


def test_other_is_a_top_level_category_things_are_created_in(api):
    other = api.get("/categories/other/").json()
    assert (other["name"], other["slug"]) == ("Other", "other")
    assert Category.objects.get(slug="other").parent is None
    for name in ("other", "Other"):
        created = api.post("/things/", {"name": "Odd part", "category": name}, format="json")
        assert (created.status_code, created.json()["category"]) == (200, "Other")


def test_the_other_migration_is_safe_when_it_already_exists():
    migration = importlib.import_module("apps.things.migrations.0005_category_other")
    migration.add_other(django_apps, None)  # a second run: still one
    assert Category.objects.filter(slug="other").count() == 1
    # An administrator's own "OTHER" under another category is left where it is, and nothing is added.
    Category.objects.filter(slug="other").delete()
    art = Category.objects.get(slug="art")
    Category.objects.create(name="OTHER", slug="art-other", parent=art)
    migration.add_other(django_apps, None)
    assert list(Category.objects.filter(name__iexact="other").values_list("slug", "parent")) == [
        ("art-other", art.pk)
    ]


# --- Collection fields ------------------------------------------------------------------------------


def test_a_collection_carries_the_fields_of_the_original_schema(api):
    collection = CollectionFactory(name="Hooks")
    older = CollectionThingFactory(collection=collection)
    newest = CollectionThingFactory(collection=collection)
    body = api.get(f"/collections/{collection.pk}/").json()

    assert body["absolute_url"] == f"http://testserver/collection:{collection.pk}"
    assert (body["is_watched"], body["is_featured"]) == (False, False)
    assert body["featured_thing_id"] == newest.thing_id != older.thing_id
    assert body["featured_thing"]["id"] == newest.thing_id and body["featured_thing"]["name"] == newest.thing.name
    assert body["preview_image"].startswith("http")
    # The page the absolute_url names exists, for anyone.
    page = api.get(urlsplit(body["absolute_url"]).path)
    assert page.status_code == 200 and newest.thing.name in page.content.decode()


def test_a_collection_featured_by_staff_says_so(api):
    from apps.thingcollections.services import collection_set_featured

    collection = CollectionFactory()
    collection_set_featured(collection=collection, featured=True)
    assert api.get(f"/collections/{collection.pk}/").json()["is_featured"] is True


# --- Things keep the spec's fields -----------------------------------------------------------------


def test_a_thing_keeps_the_specs_sub_collection_url_fields(api):
    thing = ThingFactory()
    body = api.get(f"/things/{thing.pk}/").json()
    for name in ("files", "images", "likes", "ancestors", "derivatives", "tags", "categories"):
        assert body[name] == body[f"{name}_url"] == f"http://testserver/things/{thing.pk}/{name}"


# --- renders are images; meta_data is an array, the analysis is geometry ----------------------------


def _upload(api, thing_id, filename, data, captured) -> dict:
    descriptor = api.post(f"/things/{thing_id}/files", {"filename": filename}, format="json").json()
    assert store_post(descriptor, data, filename=filename).status_code == 303
    with captured(execute=True):  # processing runs on commit (Celery eager in tests)
        finalized = api.post(urlsplit(descriptor["fields"]["success_action_redirect"]).path)
    assert finalized.status_code == 200, finalized.content
    return finalized.json()


def test_a_thing_with_only_an_stl_shows_its_render_as_default_image_and_in_its_images(
    api, s3, django_capture_on_commit_callbacks
):
    thing_id = api.post("/things/", {"name": "Tetrahedron"}, format="json").json()["id"]
    summary = _upload(api, thing_id, "tetra.stl", stl_bytes(), django_capture_on_commit_callbacks)

    file = api.get(f"/files/{summary['id']}/").json()
    assert file["meta_data"] == []
    assert (file["geometry"]["format"], file["geometry"]["triangles"], file["geometry"]["closed"]) == (
        "stl-binary", 4, True
    )
    images = api.get(f"/things/{thing_id}/images").json()
    assert [image["name"] for image in images] == ["tetra.png"]
    thing = api.get(f"/things/{thing_id}/").json()
    assert thing["default_image"]["id"] == images[0]["id"] == file["default_image"]["id"]
    assert {(s["type"], s["size"]) for s in images[0]["sizes"]} >= {("thumb", "medium"), ("display", "large")}
    assert requests.get(thing["thumbnail"], timeout=10).headers["Content-Type"] == "image/jpeg"
    assert requests.get(images[0]["url"], timeout=10).headers["Content-Type"] == "image/png"


def test_uploaded_images_come_before_renders_and_become_the_default_image(
    api, s3, django_capture_on_commit_callbacks
):
    thing_id = api.post("/things/", {"name": "Hook"}, format="json").json()["id"]
    _upload(api, thing_id, "hook.stl", stl_bytes(), django_capture_on_commit_callbacks)
    _upload(api, thing_id, "photo.png", png_bytes(), django_capture_on_commit_callbacks)

    images = api.get(f"/things/{thing_id}/images").json()
    assert [image["name"] for image in images] == ["photo.png", "hook.png"]
    assert api.get(f"/things/{thing_id}/").json()["default_image"]["name"] == "photo.png"
    # The owner may still feature the render.
    assert api.patch(f"/things/{thing_id}/images/{images[1]['id']}", {"featured": True}, format="json").json()
    assert api.get(f"/things/{thing_id}/").json()["default_image"]["name"] == "hook.png"


def test_deleting_the_file_deletes_its_render_image_and_objects_and_keeps_counts(
    api, s3, django_capture_on_commit_callbacks
):
    from django.conf import settings

    thing_id = api.post("/things/", {"name": "Clip"}, format="json").json()["id"]
    summary = _upload(api, thing_id, "clip.stl", stl_bytes(), django_capture_on_commit_callbacks)
    render = Image.objects.get(source_file_id=summary["id"])
    keys = [render.key, *(size["key"] for size in render.sizes)]

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/things/{thing_id}/files/{summary['id']}").json() == {"ok": True}

    assert api.get(f"/things/{thing_id}/images").json() == []
    thing = api.get(f"/things/{thing_id}/").json()
    assert (thing["default_image"], thing["file_count"]) == (None, 0)
    assert thing["thumbnail"].endswith("things/placeholder.png")
    stored = {o["Key"] for o in s3.list_objects_v2(Bucket=settings.S3_BUCKET).get("Contents", [])}
    assert not stored & set(keys)


def test_deleting_a_render_image_keeps_the_file_and_its_thumbnail(api, s3, django_capture_on_commit_callbacks):
    thing_id = api.post("/things/", {"name": "Peg"}, format="json").json()["id"]
    summary = _upload(api, thing_id, "peg.stl", stl_bytes(), django_capture_on_commit_callbacks)
    [render] = api.get(f"/things/{thing_id}/images").json()

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/things/{thing_id}/images/{render['id']}").json() == {"ok": True}

    file = api.get(f"/files/{summary['id']}/").json()
    assert file["status"] == "live" and requests.get(file["thumbnail"], timeout=10).status_code == 200
    assert api.get(f"/things/{thing_id}/images").json() == []
