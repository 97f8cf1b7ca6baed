"""Collections on the site (issue 15): the collection page, collecting from a Thing's page into an existing
or a new collection, editing, removing and deleting; the site session is not limited by the per-app rules,
and a collection made on the site stays out of every app's reach (docs/decisions.md: Collections)."""

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import ApplicationFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.thingcollections.models import Collection, CollectionThing
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_collection_page_lists_the_things_a_visitor_may_see(client):
    collection = CollectionFactory(name="Desk gadgets", description="Small helpers")
    CollectionThingFactory(collection=collection, thing=ThingFactory(name="Cable clip"))
    CollectionThingFactory(collection=collection, thing=ThingFactory(name="A draft", is_published=False))
    CollectionThingFactory(collection=collection, thing=ThingFactory(name="Hidden one", is_hidden=True))
    html = client.get(f"/collection:{collection.pk}").content.decode()
    assert "Desk gadgets" in html and "Small helpers" in html and "Cable clip" in html
    assert "A draft" not in html and "Hidden one" not in html and "1 Thing<" in html


def test_an_unknown_collection_is_404(client):
    assert client.get("/collection:999999").status_code == 404


def test_collecting_into_a_new_collection_creates_it_on_the_site(browser, user):
    thing = ThingFactory()
    response = browser.post(f"/thing:{thing.pk}/collect", {"new_name": "Print next"}, **JSON)
    collection = Collection.objects.get(creator=user)
    assert response.json()["collection_url"] == f"/collection:{collection.pk}"
    assert collection.name == "Print next" and collection.created_by_app is None
    assert CollectionThing.objects.filter(collection=collection, thing=thing).exists()
    assert Thing.objects.get(pk=thing.pk).collect_count == 1


def test_collecting_into_an_existing_collection_including_one_an_app_made(browser, user):
    made_by_app = CollectionFactory(creator=user, created_by_app=ApplicationFactory())
    thing = ThingFactory()
    assert browser.post(f"/thing:{thing.pk}/collect", {"collection_id": made_by_app.pk}).status_code == 302
    assert made_by_app.entries.filter(thing=thing).exists()


def test_the_thing_page_dialog_marks_the_collections_holding_it(browser, user):
    thing = ThingFactory()
    holding = CollectionFactory(creator=user, name="Holding it")
    CollectionThingFactory(collection=holding, thing=thing)
    CollectionFactory(creator=user, name="Not yet")
    html = browser.get(f"/thing:{thing.pk}").content.decode()
    assert f'action="/collection:{holding.pk}/things/{thing.pk}/remove"' in html and "Not yet" in html
    assert ">Collected<" in html


def test_nobody_collects_into_someone_elses_collection_or_a_hidden_thing(browser):
    theirs = CollectionFactory()
    thing = ThingFactory()
    assert browser.post(f"/thing:{thing.pk}/collect", {"collection_id": theirs.pk}, **JSON).status_code == 403
    draft = ThingFactory(is_published=False, published_at=None)
    assert browser.post(f"/thing:{draft.pk}/collect", {"new_name": "x"}).status_code == 404
    assert not CollectionThing.objects.exists() and Collection.objects.count() == 1


def test_the_owner_renames_removes_and_deletes(browser, user):
    collection = CollectionFactory(creator=user, name="Old")
    entry = CollectionThingFactory(collection=collection)
    browser.post(f"/collection:{collection.pk}/edit", {"name": "New", "description": "d"})
    assert Collection.objects.get(pk=collection.pk).name == "New"
    browser.post(f"/collection:{collection.pk}/things/{entry.thing_id}/remove")
    assert not CollectionThing.objects.exists()
    assert browser.post(f"/collection:{collection.pk}/delete").status_code == 302
    assert not Collection.objects.exists()


def test_others_cannot_change_a_collection(browser):
    collection = CollectionFactory(name="Theirs")
    entry = CollectionThingFactory(collection=collection)
    for path, data in (
        (f"/collection:{collection.pk}/edit", {"name": "Mine"}),
        (f"/collection:{collection.pk}/things/{entry.thing_id}/remove", {}),
        (f"/collection:{collection.pk}/delete", {}),
    ):
        assert browser.post(path, data).status_code == 404, path
    assert Collection.objects.get(pk=collection.pk).name == "Theirs" and CollectionThing.objects.exists()


def test_a_new_collection_from_the_account(browser, user):
    assert browser.get("/account/collections/new").status_code == 200
    response = browser.post("/account/collections/new", {"name": "Gifts", "description": ""})
    collection = Collection.objects.get(creator=user)
    assert response["Location"] == f"/collection:{collection.pk}"


def test_the_profile_lists_the_users_collections(client):
    owner = UserFactory(username="collector")
    CollectionFactory(creator=owner, name="Favourites")
    assert "Favourites" in client.get("/@collector/collections").content.decode()


def test_the_owner_sees_their_own_draft_in_their_collection(user):
    collection = CollectionFactory(creator=user, name="Hooks")
    CollectionThingFactory(
        collection=collection, thing=ThingFactory(name="Secret hook", creator=user, is_published=False)
    )
    owner = Client()
    owner.force_login(user)
    assert "Secret hook" in owner.get(f"/collection:{collection.pk}").content.decode()
    assert "Secret hook" not in Client().get(f"/collection:{collection.pk}").content.decode()


def test_the_collection_page_takes_no_post(client):
    collection = CollectionFactory()
    assert client.post(f"/collection:{collection.pk}").status_code == 405


@pytest.mark.parametrize("rows", [1, 30])
def test_the_page_costs_the_same_queries_for_1_and_30_things(client, rows, django_assert_num_queries):
    collection = CollectionFactory()
    for _ in range(rows):
        CollectionThingFactory(collection=collection)
    # the collection (with its count and cover), the page of Things (creator and default image joined)
    with django_assert_num_queries(2):
        assert client.get(f"/collection:{collection.pk}").status_code == 200
