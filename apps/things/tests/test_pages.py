"""Site pages: the Thing page at its `url` (/thing:<id>) and the front page (/)."""
import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.things.models import Remix
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def draft(user):
    return ThingFactory(creator=user, name="Secret draft", is_published=False, published_at=None)


def test_a_published_thing_shows_everything_a_visitor_needs(client):
    thing = ThingFactory(
        name="Cable clip",
        description="Holds two cables.",
        instructions="Print flat.",
        license="cc-nc-sa",
        category=category("office-organization"),
        tags=["cable", "Desk_Tidy"],
    )
    response = client.get(f"/thing:{thing.pk}")
    assert response.status_code == 200
    html = response.content.decode()
    for text in (
        "Cable clip",
        "Holds two cables.",
        "Print flat.",
        "Creative Commons - Attribution - Non-Commercial - Share Alike",
        f'href="http://testserver/@{thing.creator.username}"',
        "#cable",
        "#Desk_Tidy",
        # issue 15: the category and its parent are links to their pages, and so are the tags.
        '<a href="/browse/categories/household">Household</a> › '
        '<a href="/browse/categories/office-organization">Office Organization</a>',
        'href="/browse/tags/cable"',
        'href="https://creativecommons.org/licenses/by-nc-sa/4.0/"',
        "/static/things/placeholder.png",
        '<h2 id="files-title"',
        "published <time",
    ):
        assert text in html, text


def test_the_page_answers_with_a_trailing_slash_too(client):
    thing = ThingFactory()
    assert client.get(f"/thing:{thing.pk}/").status_code == 200


def test_the_page_is_the_things_url(api):
    thing = ThingFactory()
    body = api.get("/newest/").json()
    assert body[0]["url"] == f"http://testserver/thing:{thing.pk}"


def test_the_page_escapes_the_description(client):
    thing = ThingFactory(description="<script>alert(1)</script>")
    assert "<script>alert(1)" not in client.get(f"/thing:{thing.pk}").content.decode()


def test_the_description_and_instructions_are_rendered_markdown_without_unsafe_html(client):
    thing = ThingFactory(
        description="A **test** thing\n\n- one\n- two\n\n[site](https://example.org) <img src=x onerror=alert(1)>",
        instructions="| layer | infill |\n|---|---|\n| 0.2 | 20% |\n\n[bad](javascript:alert(1))",
    )
    html = client.get(f"/thing:{thing.pk}").content.decode()
    assert "A <strong>test</strong> thing" in html and "<li>one</li>" in html
    assert '<a href="https://example.org" rel="nofollow noopener">site</a>' in html
    assert "<td>0.2</td>" in html
    assert "onerror" not in html and "javascript:" not in html and "**test**" not in html


def test_a_remix_links_its_published_ancestors(client):
    ancestor = ThingFactory(name="Original arm")
    hidden = ThingFactory(name="Hidden draft ancestor", is_published=False, published_at=None)
    remix = ThingFactory()
    Remix.objects.create(derivative=remix, ancestor=ancestor)
    Remix.objects.create(derivative=remix, ancestor=hidden)
    html = client.get(f"/thing:{remix.pk}").content.decode()
    assert f'<a href="/thing:{ancestor.pk}">Original arm</a>' in html
    assert "Hidden draft ancestor" not in html


def test_a_draft_is_404_for_visitors(client, draft):
    assert client.get(f"/thing:{draft.pk}").status_code == 404


def test_a_draft_is_404_for_other_signed_in_users(draft):
    other = Client()
    other.force_login(UserFactory())
    assert other.get(f"/thing:{draft.pk}").status_code == 404


def test_a_draft_is_shown_to_its_signed_in_owner(browser, draft):
    response = browser.get(f"/thing:{draft.pk}")
    assert response.status_code == 200
    assert "Secret draft" in response.content.decode()
    assert "Draft: only you can see this page" in response.content.decode()


def test_an_unknown_thing_is_404(client):
    assert client.get("/thing:999999").status_code == 404


def test_the_front_page_links_the_newest_published_things(client, user):
    older = ThingFactory(name="Older thing")
    newer = ThingFactory(name="Newer thing")
    ThingFactory(name="Draft thing", is_published=False, published_at=None, creator=user)
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="/thing:{newer.pk}"' in html and f'href="/thing:{older.pk}"' in html
    assert html.index("Newer thing") < html.index("Older thing")
    assert "Draft thing" not in html


def test_the_front_page_says_so_when_nothing_is_published(client):
    assert "No Things have been published yet." in client.get("/").content.decode()


@pytest.mark.parametrize("slug", [None, "hobby", "robotics"])
def test_the_thing_page_needs_a_constant_number_of_queries(client, slug, django_assert_num_queries):
    thing = ThingFactory(tags=["a", "b", "c"], category=category(slug) if slug else None)
    Remix.objects.create(derivative=thing, ancestor=ThingFactory())
    # 1: the Thing with creator, category and its parent; 2: its tags; 3: its visible derivatives;
    # 4: its visible ancestors; then the sections (issue 15): 5 files, 6 images, 7 makes, 8 comments.
    with django_assert_num_queries(8):
        assert client.get(f"/thing:{thing.pk}").status_code == 200
