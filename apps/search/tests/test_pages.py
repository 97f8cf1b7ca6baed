"""The site's search page, /find (issue 15): Things, makers, collections and makes, with the category,
license and sort filters and paging, through the registry and selectors GET /search/{term}/ uses."""

import pytest

from apps.accounts.tests.factories import UserFactory
from apps.makes.tests.factories import MakeFactory
from apps.search.services import thing_index_search
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from apps.thingcollections.tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db


def _indexed(**kwargs):
    thing = ThingFactory(**kwargs)
    thing_index_search(thing_ids=[thing.pk])
    return thing


def test_searching_things_finds_published_ones_only(client, user):
    _indexed(name="Cable clip")
    _indexed(name="Cable draft", is_published=False, published_at=None, creator=user)
    _indexed(name="Cable hidden", is_hidden=True)
    html = client.get("/find?q=cable").content.decode()
    assert "Cable clip" in html and "Cable draft" not in html and "Cable hidden" not in html
    assert "1 result among things" in html


def test_the_category_and_license_filters(client):
    _indexed(name="Robot hand", category=category("robotics"), license="gpl")
    _indexed(name="Robot toy", license="cc")
    html = client.get("/find?q=robot&category=hobby").content.decode()
    assert "Robot hand" in html and "Robot toy" not in html
    html = client.get("/find?q=robot&license=cc").content.decode()
    assert "Robot toy" in html and "Robot hand" not in html
    assert '<option value="cc" selected>' in html


@pytest.mark.parametrize(
    "query",
    [
        "category=no-such-category&sort=sideways",
        # The category alone: it is known to be unknown only when the search looks it up (was a 500).
        "category=no-such-category",
        "q=anything&category=no-such-category",
        "q=anythin&category=no-such-category",  # the spelling suggestion's second search too
        "category=" + "9" * 40,
    ],
)
def test_a_bad_filter_is_explained_not_a_500(client, query):
    _indexed(name="Anything")
    response = client.get(f"/find?{query}")
    html = response.content.decode()
    assert response.status_code == 200 and "alert-error" in html
    assert "Anything" in html  # the search ran without the refused filter


def test_searching_makers_collections_and_makes(client):
    UserFactory(username="ada_prints", bio="I print bridges")
    CollectionFactory(name="Bridge parts")
    MakeFactory(thing=ThingFactory(name="Bridge model"), description="Printed in grey")
    assert "ada_prints" in client.get("/find?q=ada&type=users").content.decode()
    assert "Bridge parts" in client.get("/find?q=bridge&type=collections").content.decode()
    assert "Bridge model" in client.get("/find?q=grey&type=makes").content.decode()


def test_makes_of_hidden_or_draft_things_are_not_found(client):
    MakeFactory(thing=ThingFactory(name="Secret", is_published=False), description="grey")
    MakeFactory(description="grey", is_hidden=True)
    html = client.get("/find?q=grey&type=makes").content.decode()
    assert "0 results" in html


def test_an_unknown_type_searches_things(client):
    _indexed(name="Lamp shade")
    assert "Lamp shade" in client.get("/find?q=lamp&type=spaceships").content.decode()


def test_paging(client):
    for n in range(30):
        ThingFactory(name=f"Widget {n}")
    thing_index_search(thing_ids=Thing.objects.values_list("pk", flat=True))
    first = client.get("/find?q=widget").content.decode()
    assert first.count('class="card"') == 24 and "Page 1 of 2" in first
    assert client.get("/find?q=widget&page=2").content.decode().count('class="card"') == 6
