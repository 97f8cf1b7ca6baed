"""The collection's site page at its `absolute_url` (/collection:<id>), the address the API's compat
field names (docs/decisions.md: Collection)."""
import pytest
from django.test import Client

from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_the_page_shows_the_collection_and_the_things_the_visitor_may_see(client, user):
    collection = CollectionFactory(name="Hooks", description="Every hook I printed.")
    CollectionThingFactory(collection=collection, thing=ThingFactory(name="Towel hook"))
    CollectionThingFactory(collection=collection, thing=ThingFactory(name="Secret hook", creator=user,
                                                                     is_published=False))
    html = client.get(f"/collection:{collection.pk}").content.decode()
    for text in ("Hooks", "Every hook I printed.", collection.creator.username, "Towel hook"):
        assert text in html
    assert "Secret hook" not in html
    owner = Client()
    owner.force_login(user)
    assert "Secret hook" in owner.get(f"/collection:{collection.pk}").content.decode()


def test_an_unknown_collection_is_404(client):
    assert client.get("/collection:987654321").status_code == 404


@pytest.mark.parametrize("rows", [1, 30])
def test_the_page_costs_the_same_queries_for_1_and_30_things(client, rows, django_assert_num_queries):
    collection = CollectionFactory()
    for _ in range(rows):
        CollectionThingFactory(collection=collection)
    # the collection (with its count and cover), the page of Things (creator and default image joined)
    with django_assert_num_queries(2):
        assert client.get(f"/collection:{collection.pk}").status_code == 200
