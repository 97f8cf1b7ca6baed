"""A Thing hidden by a moderator (issue 5, core.moderation) vanishes from the whole API and the site for
everyone but staff, its creator included; staff calling with a token still see it everywhere.

Each test compares a hidden Thing with a visible twin of the same creator, so a list that drops
everything would fail too.
"""
from dataclasses import dataclass

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.groups.models import GroupThing
from apps.groups.tests.factories import GroupFactory
from apps.search.services import thing_index_search
from apps.things.models import Like, Remix, Thing
from apps.things.tests.factories import ThingFactory, category
from tests.support.api import assert_error, assert_unauthorized
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.uploads.models import Download
from apps.uploads.tests.file_factories import ImageFactory, live_file

pytestmark = pytest.mark.django_db

VIEWERS = ("creator", "stranger", "staff")


@dataclass
class World:
    creator: object
    stranger: object
    staff: object
    hidden: Thing
    visible: Thing
    base: Thing
    derivative: Thing
    collection: object
    group: object
    clients: dict

    def client(self, name):
        return self.clients[name]


@pytest.fixture
def world(client_for):
    creator, stranger = UserFactory(), UserFactory()
    staff = UserFactory(is_staff=True)
    robotics = category("robotics")
    common = {"creator": creator, "category": robotics, "is_featured": True}
    hidden = ThingFactory(name="Zebrafoo hidden bracket", tags=["gear", "secretgear"], **common)
    visible = ThingFactory(name="Zebrafoo visible bracket", tags=["gear"], **common)
    base = ThingFactory(creator=stranger, name="Base plate")
    derivative = ThingFactory(creator=stranger, name="Remixed plate")
    for thing in (hidden, visible):
        Remix.objects.create(derivative=thing, ancestor=base)
        Remix.objects.create(derivative=derivative, ancestor=thing)
        for user in (stranger, staff):
            Like.objects.create(user=user, thing=thing)
        for user in (creator, stranger, staff):
            Download.objects.create(user=user, thing=thing)
    collection = CollectionFactory(creator=stranger)
    group = GroupFactory(creator=stranger)
    for thing in (hidden, visible):
        CollectionThingFactory(collection=collection, thing=thing)
        GroupThing.objects.create(group=group, thing=thing, added_by=stranger)
    thing_index_search(thing_ids=[hidden.pk, visible.pk, base.pk, derivative.pk])
    moderation_hide(obj=hidden, reason="Copied from someone else's design.", by=staff)
    clients = {name: client_for(user) for name, user in (("creator", creator), ("stranger", stranger),
                                                         ("staff", staff))}
    return World(creator, stranger, staff, hidden, visible, base, derivative, collection, group, clients)


def _ids(response, key=None) -> list[int]:
    assert response.status_code == 200, response.content
    rows = response.json()[key] if key else response.json()
    return [row["id"] for row in rows]


def _expect_listed(world, viewer, ids) -> None:
    assert world.visible.pk in ids
    assert (world.hidden.pk in ids) is (viewer == "staff")


# --- the Thing itself ----------------------------------------------------------------------------------


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize(
    "suffix",
    ["/", "/hack-the-pandemic-thing", "/likes", "/ancestors", "/derivatives", "/tags", "/categories",
     "/files", "/images", "/prints"],
)
def test_the_thing_and_its_sub_collections_are_404_but_for_staff(world, viewer, suffix):
    response = world.client(viewer).get(f"/things/{world.hidden.pk}{suffix}")
    if viewer == "staff":
        assert response.status_code == 200, response.content
    else:
        assert_error(response, 404, "NOT_FOUND")


def test_anonymous_still_gets_401_not_a_hint(world, anon_client):
    assert_unauthorized(anon_client.get(f"/things/{world.hidden.pk}/"))


@pytest.mark.parametrize("viewer", ("creator", "stranger"))
def test_writes_on_a_hidden_thing_are_404_even_for_its_creator(world, viewer):
    api = world.client(viewer)
    thing = world.hidden.pk
    assert_error(api.patch(f"/things/{thing}/", {"name": "Renamed"}, format="json"), 404)
    assert_error(api.post(f"/things/{thing}/publish"), 404)
    assert_error(api.delete(f"/things/{thing}/"), 404)
    assert_error(api.post(f"/things/{thing}/toggle-watch"), 404)
    assert_error(api.post(f"/things/{thing}/files", {"filename": "x.stl"}, format="json"), 404)
    # The stranger's own collection: 404 for the Thing; the creator: 403 for someone else's collection first.
    collect = api.post(f"/collections/{world.collection.pk}/thing/{thing}")
    assert_error(collect, 404 if viewer == "stranger" else 403)
    assert Thing.objects.get(pk=thing).name == "Zebrafoo hidden bracket"


def test_liking_a_hidden_thing_is_404(world):
    assert_error(world.client("stranger").delete(f"/things/{world.hidden.pk}/likes"), 404)
    assert_error(world.client("stranger").post(f"/things/{world.hidden.pk}/likes"), 404)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_files_images_downloads_and_the_package_are_404_but_for_staff(world, viewer, s3):
    file = live_file(s3, world.hidden)
    Thing.objects.filter(pk=world.hidden.pk).update(file_count=1)
    image = ImageFactory(thing=world.hidden)
    api = world.client(viewer)
    responses = [
        api.get(f"/files/{file.pk}/"),
        api.get(f"/things/{world.hidden.pk}/files/{file.pk}"),
        api.get(f"/things/{world.hidden.pk}/images/{image.pk}"),
        api.get(f"/files/{file.pk}/download"),
        api.get(f"/things/{world.hidden.pk}/package-url"),
    ]
    for response in responses:
        if viewer == "staff":
            assert response.status_code in (200, 202, 302), response.content
        else:
            assert_error(response, 404, "NOT_FOUND")


# --- lists ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize(
    "path",
    ["/newest/", "/popular/", "/featured/", "/categories/robotics/things", "/tags/gear/things",
     "/users/{creator}/things", "/users/{stranger}/likes", "/users/{stranger}/favorites",
     "/users/me/downloads", "/collections/{collection}/things", "/groups/{group}/things",
     "/things/{base}/derivatives", "/things/{derivative}/ancestors", "/search/zebrafoo/",
     "/search/gear/tag", "/users/{creator}/search/zebrafoo"],
)
def test_lists_leave_a_hidden_thing_out_but_for_staff(world, viewer, path):
    path = path.format(
        creator=world.creator.username, stranger=world.stranger.username, collection=world.collection.pk,
        group=world.group.pk, base=world.base.pk, derivative=world.derivative.pk,
    )
    _expect_listed(world, viewer, _ids(world.client(viewer).get(path)))


@pytest.mark.parametrize("viewer", VIEWERS)
def test_all_collected_things_leaves_it_out_but_for_staff(world, viewer):
    response = world.client(viewer).get(f"/users/{world.stranger.username}/all-collected-things")
    ids = _ids(response, "things")
    _expect_listed(world, viewer, ids)
    assert response.json()["count"] == len(ids)


def test_the_library_search_leaves_it_out_of_its_creators_own_things(world):
    response = world.client("creator").get("/search//library")
    assert world.hidden.pk not in _ids(response) and world.visible.pk in _ids(response)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_autocomplete_leaves_out_its_name_and_its_only_tags_but_for_staff(world, viewer):
    names = [item["name"] for item in world.client(viewer).get("/search/zebrafoo/autocomplete").json()]
    assert "Zebrafoo visible bracket" in names
    assert ("Zebrafoo hidden bracket" in names) is (viewer == "staff")
    tags = world.client(viewer).get("/search/secret/autocomplete")
    if viewer == "staff":
        assert [item["name"] for item in tags.json()] == ["secretgear"]
    else:
        assert_error(tags, 404)


# --- counters ------------------------------------------------------------------------------------------


def _expected_count(viewer) -> int:
    return 2 if viewer == "staff" else 1


@pytest.mark.parametrize("viewer", VIEWERS)
def test_tag_and_category_counts_leave_it_out_but_for_staff(world, viewer):
    api = world.client(viewer)
    assert api.get("/tags/gear/").json()["count"] == _expected_count(viewer)
    gear = next(t for t in api.get("/tags/").json() if t["name"] == "gear")
    assert gear["count"] == _expected_count(viewer)
    assert api.get("/categories/robotics/").json()["count"] == _expected_count(viewer)
    robotics = next(c for c in api.get("/categories/", {"per_page": 100}).json() if c["slug"] == "robotics")
    assert robotics["count"] == _expected_count(viewer)
    assert api.get(f"/things/{world.visible.pk}/tags").json()[0]["count"] == _expected_count(viewer)
    assert api.get(f"/things/{world.visible.pk}/categories").json()[0]["count"] == _expected_count(viewer)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_a_tag_only_hidden_things_carry_does_not_exist_but_for_staff(world, viewer):
    api = world.client(viewer)
    for path in ("/tags/secretgear/", "/tags/secretgear/things", "/search/secretgear/tag"):
        response = api.get(path)
        if viewer == "staff":
            assert response.status_code == 200
        else:
            assert_error(response, 404)
    assert any(t["name"] == "secretgear" for t in api.get("/tags/").json()) is (viewer == "staff")


@pytest.mark.parametrize("viewer", VIEWERS)
def test_collection_and_group_counts_leave_it_out_but_for_staff(world, viewer):
    api = world.client(viewer)
    assert api.get(f"/collections/{world.collection.pk}/").json()["count"] == _expected_count(viewer)
    assert api.get(f"/groups/{world.group.pk}/").json()["things"]["count"] == _expected_count(viewer)


# --- search, at once -----------------------------------------------------------------------------------


def test_hiding_removes_it_from_search_at_once_and_unhiding_restores_it(world):
    api = world.client("stranger")
    moderation_unhide(obj=world.hidden)
    assert world.hidden.pk in _ids(api.get("/search/zebrafoo/"))
    moderation_hide(obj=world.hidden, reason="Spam.", by=world.staff)
    assert _ids(api.get("/search/zebrafoo/")) == [world.visible.pk]
    moderation_unhide(obj=world.hidden)
    assert set(_ids(api.get("/search/zebrafoo/"))) == {world.hidden.pk, world.visible.pk}


def test_search_that_only_a_hidden_thing_matches_is_404(world):
    assert_error(world.client("creator").get("/search/hidden/"), 404)
    assert _ids(world.client("staff").get("/search/hidden/")) == [world.hidden.pk]


def test_a_hidden_thing_cannot_be_named_as_an_ancestor(world):
    response = world.client("creator").post(
        "/things/", {"name": "Remix", "ancestors": [world.hidden.pk]}, format="json"
    )
    assert_error(response, 400, "VALIDATION_FAILED")


# --- the site ------------------------------------------------------------------------------------------


def _browser(user=None) -> Client:
    browser = Client()
    if user is not None:
        browser.force_login(user)
    return browser


def test_the_thing_page_is_404_for_visitors_and_a_notice_for_the_creator_but_not_staff(world):
    page = f"/thing:{world.hidden.pk}"
    assert _browser().get(page).status_code == 404
    # Its creator is told why it is hidden and may appeal (issue 26); the Thing itself is not shown.
    notice = _browser(world.creator).get(page).content.decode()
    assert "A moderator hid this Thing" in notice and world.hidden.description not in notice
    assert _browser(world.stranger).get(page).status_code == 404
    assert _browser(world.staff).get(page).status_code == 200
    assert _browser().get(f"/thing:{world.visible.pk}").status_code == 200


def test_the_site_index_leaves_it_out(world):
    body = _browser().get("/").content.decode()
    assert "Zebrafoo visible bracket" in body and "Zebrafoo hidden bracket" not in body


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
@pytest.mark.parametrize("per_page", [1, 30])
def test_the_newest_list_query_count_is_the_same_with_a_hidden_thing(
    world, per_page, django_assert_num_queries
):
    api = world.client("stranger")
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with django_assert_num_queries(2):  # the token with the page of Things (ReadWithToken); COUNT
        assert api.get("/newest/", {"per_page": per_page}).status_code == 200
