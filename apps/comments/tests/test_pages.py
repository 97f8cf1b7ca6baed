"""Comments on the site (issue 15): the threaded conversation of a Thing, a make and a group topic, with
posting and replying through the same services and visibility rules as spec §4.6's endpoints."""

import pytest
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory, join, make_of
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_thing_page_shows_the_thread_with_replies_under_their_comment(client):
    thing = ThingFactory()
    root = CommentFactory(thing=thing, body="Which filament?")
    CommentFactory(parent=root, body="PETG, *always*.")
    CommentFactory(thing=thing, body="Great design")
    html = client.get(f"/thing:{thing.pk}").content.decode()
    first, reply, second = (
        html.index(t) for t in ("Which filament?", "PETG, <em>always</em>.", "Great design")
    )
    assert first < reply < second
    assert f'id="comment-{root.pk}"' in html and 'class="replies"' in html
    assert "Log in</a> or <a" in html  # visitors are asked to log in to comment


def test_a_hidden_comment_and_its_replies_stay_out_of_the_thread(client):
    thing = ThingFactory()
    hidden = CommentFactory(thing=thing, body="Spam spam", is_hidden=True)
    CommentFactory(parent=hidden, body="Reply to spam")
    html = client.get(f"/thing:{thing.pk}").content.decode()
    assert "Spam spam" not in html and "Reply to spam" not in html


def test_posting_a_comment_and_a_reply(browser, user):
    thing = ThingFactory()
    response = browser.post(f"/thing:{thing.pk}/comments", {"body": "Printed it **twice**"})
    comment = Comment.objects.get(user=user)
    assert response.status_code == 302 and response["Location"] == f"/thing:{thing.pk}#comment-{comment.pk}"
    assert comment.body_html == "<p>Printed it <strong>twice</strong></p>"
    reply = browser.post(
        f"/thing:{thing.pk}/comments", {"body": "And again", "parent_id": comment.pk}, **JSON
    )
    assert reply.status_code == 200 and reply.json()["ok"] is True
    assert Comment.objects.get(pk=reply.json()["id"]).parent_id == comment.pk
    assert Thing.objects.get(pk=thing.pk).comment_count == 2


def test_an_empty_comment_is_refused_in_words(browser):
    thing = ThingFactory()
    response = browser.post(f"/thing:{thing.pk}/comments", {"body": "   "}, **JSON)
    assert response.status_code == 400 and response.json()["error"] == "Write something first."
    assert not Comment.objects.exists()


def test_a_reply_to_a_comment_of_another_thing_is_refused(browser):
    elsewhere = CommentFactory()
    thing = ThingFactory()
    response = browser.post(f"/thing:{thing.pk}/comments", {"body": "hi", "parent_id": elsewhere.pk}, **JSON)
    assert response.status_code == 400 and Comment.objects.count() == 1


def test_nobody_comments_on_someone_elses_draft(browser):
    draft = ThingFactory(is_published=False, published_at=None)
    assert browser.post(f"/thing:{draft.pk}/comments", {"body": "hello"}).status_code == 404
    assert not Comment.objects.exists()


def test_the_make_page_has_its_own_conversation(browser, user):
    make = make_of()
    browser.post(f"/make:{make.pk}/comments", {"body": "Nice colour"})
    assert Comment.objects.get(make=make).body == "Nice colour"
    assert "Nice colour" in Client().get(f"/make:{make.pk}").content.decode()


def test_only_members_comment_on_a_group_topic(browser, user):
    group = GroupFactory(slug="printers")
    topic = GroupTopicFactory(group=group)
    path = f"/groups/printers/topics/{topic.pk}"
    page = browser.get(path).content.decode()
    assert "Join the group to take part" in page
    assert browser.post(f"{path}/comments", {"body": "hi"}, **JSON).status_code == 403
    join(group, user)
    assert browser.post(f"{path}/comments", {"body": "hi"}).status_code == 302
    assert Comment.objects.get(topic=topic).body == "hi"


def test_a_topic_under_another_groups_slug_is_404(browser):
    topic = GroupTopicFactory()
    GroupFactory(slug="other")
    assert browser.get(f"/groups/other/topics/{topic.pk}").status_code == 404
    assert browser.post(f"/groups/other/topics/{topic.pk}/comments", {"body": "x"}).status_code == 404


def test_a_visitor_cannot_post(client):
    thing = ThingFactory()
    assert client.post(f"/thing:{thing.pk}/comments", {"body": "x"})["Location"].startswith("/login/")
    stranger = Client()
    stranger.force_login(UserFactory())
    assert not Comment.objects.exists()
