"""Groups on the site (issue 15): the list, a group's page at its `public_url`, joining and leaving, topics
with their conversation. Hidden groups are gone for everyone but staff, as in the API."""

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.groups.models import GroupMember, GroupThing, GroupTopic
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_group_list_shows_visible_groups_with_a_search(client):
    GroupFactory(name="Resin printers", description="Vats and UV")
    GroupFactory(name="Hidden group", is_hidden=True)
    html = client.get("/browse/groups").content.decode()
    assert "Resin printers" in html and "Hidden group" not in html
    assert "Resin printers" not in client.get("/browse/groups?q=filament").content.decode()


def test_the_group_page_is_at_its_public_url(client, api):
    group = GroupFactory(slug="resin", name="Resin printers")
    GroupTopicFactory(group=group, name="Best resin?")
    thing = ThingFactory(name="Vat scraper")
    draft = ThingFactory(name="A draft", is_published=False)
    GroupThing.objects.create(group=group, thing=thing)
    GroupThing.objects.create(group=group, thing=draft)
    assert api.get(f"/groups/{group.pk}/").json()["public_url"] == "http://testserver/groups/resin"
    html = client.get("/groups/resin").content.decode()
    assert "Resin printers" in html and "Best resin?" in html and "Vat scraper" in html
    assert "A draft" not in html and group.creator.username in html


def test_a_hidden_or_unknown_group_is_404(client):
    GroupFactory(slug="gone", is_hidden=True)
    assert client.get("/groups/gone").status_code == 404
    assert client.get("/groups/nothing-here").status_code == 404


def test_joining_posting_a_topic_and_leaving(browser, user):
    group = GroupFactory(slug="pla")
    assert browser.post("/groups/pla/topics/new", {"name": "Hi", "body": "All"}).status_code == 302
    assert not GroupTopic.objects.filter(user=user).exists()  # not a member yet
    browser.post("/groups/pla/join")
    assert GroupMember.objects.filter(group=group, user=user).exists()
    response = browser.post("/groups/pla/topics/new", {"name": "Stringing", "body": "How do you fix it?"})
    topic = GroupTopic.objects.get(user=user)
    assert response["Location"] == f"/groups/pla/topics/{topic.pk}"
    assert "How do you fix it?" in browser.get(f"/groups/pla/topics/{topic.pk}").content.decode()
    browser.post("/groups/pla/leave")
    assert not GroupMember.objects.filter(group=group, user=user).exists()


def test_the_owner_cannot_leave(user, browser):
    GroupFactory(slug="mine", creator=user)
    response = browser.post("/groups/mine/leave", follow=True)
    assert "The group owner cannot leave their own group." in response.content.decode()


def test_a_visitor_is_asked_to_log_in_to_join(client):
    GroupFactory(slug="open")
    assert "Log in to join" in client.get("/groups/open").content.decode()
    assert client.post("/groups/open/join")["Location"].startswith("/login/")
    assert GroupMember.objects.count() == 1  # only the owner


def test_the_group_page_shows_its_members(browser):
    group = GroupFactory(slug="crowd")
    for _ in range(3):
        GroupMember.objects.create(group=group, user=UserFactory())
    assert browser.get("/groups/crowd").content.decode().count('class="avatar"') >= 4


def test_the_page_route_leaves_the_apis_groups_id_without_its_slash_to_the_api(api):
    group = GroupFactory(slug="resin")
    assert api.get(f"/groups/{group.pk}").json()["slug"] == "resin"  # the API, not the page
    assert api.get("/groups/999999").json()["type"] == "NOT_FOUND"
