"""Browsing on the site (issue 15): the front page, newest / popular / featured, categories and tags.

Every list shows what the API's lists show: published Things, never a draft or a Thing a moderator hid.
"""

import pytest
from django.test import Client

from apps.things import services
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db


@pytest.fixture
def hidden_and_draft(user):
    """A Thing a moderator hid and someone's draft: neither may show up in any list."""
    return [
        ThingFactory(
            name="Hidden by moderators", is_hidden=True, tags=["bracket"], category=category("hobby")
        ),
        ThingFactory(
            name="Somebody's draft",
            is_published=False,
            published_at=None,
            tags=["bracket"],
            category=category("hobby"),
        ),
    ]


def test_the_front_page_shows_featured_newest_popular_and_the_categories(client):
    featured = ThingFactory(name="Featured vase")
    services.thing_set_featured(thing=featured, featured=True)
    ThingFactory(name="Plain hook", category=category("hobby"))
    html = client.get("/").content.decode()
    assert "Featured vase" in html and "Plain hook" in html
    assert 'href="/browse/featured"' in html and 'href="/browse/categories/hobby"' in html


@pytest.mark.parametrize("kind", ["newest", "popular", "featured"])
def test_the_discovery_lists_never_show_hidden_or_draft_things(client, kind, hidden_and_draft):
    shown = ThingFactory(name="A public clip")
    for thing in [shown, *hidden_and_draft]:
        services.thing_set_featured(thing=thing, featured=True)
    html = client.get(f"/browse/{kind}").content.decode()
    assert "A public clip" in html
    assert "Hidden by moderators" not in html and "Somebody&#x27;s draft" not in html


def test_the_lists_page_through_24_cards(client):
    for n in range(30):
        ThingFactory(name=f"Card {n:02}")
    first = client.get("/browse/newest").content.decode()
    second = client.get("/browse/newest?page=2").content.decode()
    assert first.count('class="card"') == 24 and second.count('class="card"') == 6
    assert "Page 1 of 2" in first and 'href="?page=2"' in first


def test_the_category_index_counts_published_things_with_their_sub_categories(client, hidden_and_draft):
    ThingFactory(category=category("robotics"))
    html = client.get("/browse/categories").content.decode()
    assert 'href="/browse/categories/robotics"' in html and 'href="/browse/categories/hobby"' in html


def test_a_category_page_lists_its_and_its_sub_categories_things(client, hidden_and_draft):
    ThingFactory(name="Robot hand", category=category("robotics"))
    ThingFactory(name="Not a hobby", category=category("office-organization"))
    html = client.get("/browse/categories/hobby").content.decode()
    assert "Robot hand" in html and "Not a hobby" not in html
    assert "Hidden by moderators" not in html and "draft" not in html.lower().replace("badge-draft", "")


def test_a_category_page_takes_the_slug_in_any_form_and_404s_an_unknown_one(client):
    assert client.get("/browse/categories/Replacement Parts").status_code == 200
    response = client.get("/browse/categories/no-such-category")
    assert response.status_code == 404 and "We could not find that page" in response.content.decode()


def test_a_tag_page_lists_the_published_things_carrying_it(client, hidden_and_draft):
    ThingFactory(name="Shelf bracket", tags=["Bracket"])
    html = client.get("/browse/tags/bracket").content.decode()
    assert "#bracket" in html and "Shelf bracket" in html  # the first spelling stays (spec §2 Tag)
    assert "Hidden by moderators" not in html and "Somebody&#x27;s draft" not in html


def test_a_tag_only_drafts_or_hidden_things_carry_is_404(client, hidden_and_draft):
    assert client.get("/browse/tags/bracket").status_code == 404


def test_a_signed_in_owner_does_not_see_their_draft_in_public_lists(user, hidden_and_draft):
    ThingFactory(creator=user, name="My own draft", is_published=False, published_at=None)
    browser = Client()
    browser.force_login(user)
    for path in ("/", "/browse/newest", "/browse/popular"):
        assert "My own draft" not in browser.get(path).content.decode()


def test_a_later_page_is_the_apis_compiled_statement_and_staff_still_see_hidden_things(client, admin_client):
    # apps.core.db.compiled.deferred_page: a page after the first is chosen by its ids in the list's index.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    things = [ThingFactory(name=f"Card {n:02}") for n in range(30)]
    hidden = things[1]
    hidden.is_hidden = True
    hidden.save()
    with CaptureQueriesContext(connection) as queries:
        second = client.get("/browse/newest?page=2").content.decode()
    assert any(") AS page" in q["sql"] for q in queries.captured_queries)
    # The oldest five of the 29 shown, newest first: Card 04 … Card 00, the hidden Card 01 left out.
    assert [n for n in range(30) if f"Card {n:02}" in second] == [0, 2, 3, 4, 5]
    staff = admin_client.get("/browse/newest?page=2").content.decode()
    assert [n for n in range(30) if f"Card {n:02}" in staff] == [0, 1, 2, 3, 4, 5]
