"""GET/POST /collections/, GET/PATCH/DELETE /collections/{id}/ (spec §4.5)."""
import pytest

from apps.oauth.tests.factories import ApplicationFactory
from apps.things.tests.factories import ThingFactory
from tests.support.api import assert_error, ids
from apps.thingcollections import services
from apps.thingcollections.models import Collection
from apps.thingcollections.tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db

COLLECTION_KEYS = {
    "id", "name", "description", "url", "thumbnail", "count", "is_editable", "added", "modified", "creator",
    # docs/decisions.md (compat): the original's published schema requires these.
    "absolute_url", "preview_image", "is_watched", "is_featured", "featured_thing_id", "featured_thing",
}


def test_create_returns_the_collection_and_records_the_app(api, user, application):
    response = api.post("/collections/", {"name": "Brackets", "description": "All of them"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == COLLECTION_KEYS
    collection = Collection.objects.get()
    assert (collection.creator, collection.created_by_app, collection.name) == (user, application, "Brackets")
    assert body["url"].endswith(f"/collections/{collection.pk}")
    assert (body["count"], body["is_editable"], body["creator"]["id"]) == (0, True, user.pk)
    assert body["thumbnail"].endswith("things/placeholder.png")
    assert body["absolute_url"] == f"http://testserver/collection:{collection.pk}"
    assert body["preview_image"].endswith("things/placeholder.png")
    assert (body["is_watched"], body["is_featured"]) == (False, False)
    assert (body["featured_thing_id"], body["featured_thing"]) == (None, None)


def test_create_without_slash_and_without_description(api):
    response = api.post("/collections", {"name": "Bins"}, format="json")
    assert response.status_code == 200
    assert response.json()["description"] == ""


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 101}, {"name": 42},
                                  {"name": "ok", "description": "d" * 2001}])
def test_create_rejects_bad_input(api, body):
    assert_error(api.post("/collections/", body, format="json"), 400, "VALIDATION_FAILED")
    assert not Collection.objects.exists()


def test_latest_collections_are_newest_first(api):
    older, newer = CollectionFactory(), CollectionFactory()
    assert ids(api.get("/collections/")) == [newer.pk, older.pk]


def test_detail_counts_and_thumbnails_only_visible_things(api, user, other_user):
    collection = CollectionFactory(creator=other_user)
    published, draft = ThingFactory(), ThingFactory(is_published=False)
    services.collection_add_thing(collection=collection, thing=published, user=other_user)
    services.collection_add_thing(collection=collection, thing=draft, user=other_user)
    body = api.get(f"/collections/{collection.pk}").json()
    assert (body["count"], body["is_editable"]) == (1, False)


def test_unknown_collection_is_404(api):
    assert_error(api.get("/collections/999999/"), 404)
    assert_error(api.get(f"/collections/{2**63}/"), 404)
    assert_error(api.patch("/collections/999999/", {"name": "x"}, format="json"), 404)
    assert_error(api.delete("/collections/999999/"), 404)


def test_patch_updates_name_and_description(api, user):
    collection = Collection.objects.get(pk=api.post("/collections/", {"name": "a"}, format="json").json()["id"])
    response = api.patch(f"/collections/{collection.pk}/", {"description": "new"}, format="json")
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["description"]) == ("a", "new")
    response = api.patch(f"/collections/{collection.pk}/", {"name": "b"}, format="json")
    assert response.json()["name"] == "b"
    assert_error(api.patch(f"/collections/{collection.pk}/", {"name": "x" * 101}, format="json"), 400)


def test_delete_answers_200_without_body_and_lowers_collect_count(api, user):
    collection_id = api.post("/collections/", {"name": "a"}, format="json").json()["id"]
    thing = ThingFactory()
    assert api.post(f"/collections/{collection_id}/thing/{thing.pk}").status_code == 200
    response = api.delete(f"/collections/{collection_id}/")
    assert response.status_code == 200
    assert response.content == b""
    assert not Collection.objects.exists()
    thing.refresh_from_db()
    assert thing.collect_count == 0


def test_app_rules_for_patch_and_delete(client_for, user):
    app_a, app_b = ApplicationFactory(), ApplicationFactory()
    a, b = client_for(user, app=app_a), client_for(user, app=app_b)
    collection_id = a.post("/collections/", {"name": "by A"}, format="json").json()["id"]
    assert b.get(f"/collections/{collection_id}/").json()["is_editable"] is False
    assert_error(b.patch(f"/collections/{collection_id}/", {"name": "by B"}, format="json"), 403)
    assert_error(b.delete(f"/collections/{collection_id}/"), 403)
    # 403 before 400: B learns nothing about input rules on A's collection.
    assert_error(b.patch(f"/collections/{collection_id}/", {"name": "x" * 101}, format="json"), 403)
    assert a.get(f"/collections/{collection_id}/").json()["is_editable"] is True
    assert a.patch(f"/collections/{collection_id}/", {"name": "still A"}, format="json").status_code == 200
    assert a.delete(f"/collections/{collection_id}/").status_code == 200


def test_no_app_may_change_a_collection_made_on_the_site(api, user):
    collection = services.collection_create(creator=user, name="site")
    assert api.get(f"/collections/{collection.pk}/").json()["is_editable"] is False
    assert_error(api.patch(f"/collections/{collection.pk}/", {"name": "x"}, format="json"), 403)


@pytest.mark.parametrize("rows", [1, 30])
def test_list_query_count_does_not_grow(api, user, rows, django_assert_num_queries):
    for collection in CollectionFactory.create_batch(rows):
        services.collection_add_thing(collection=collection, thing=ThingFactory(), user=collection.creator)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; COUNT; SELECT collections with creator, counts and thumbnail ids; SELECT thumbnail Things
    with django_assert_num_queries(4):
        response = api.get("/collections/")
    assert len(response.json()) == rows
    assert all(item["count"] == 1 for item in response.json())
