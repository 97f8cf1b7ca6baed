"""The comments admin: hide with a reason and unhide move the counters; deletes go through services."""
import pytest
from django.contrib.admin import helpers
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.comments import services
from apps.comments.models import Comment
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db

COMMENTS = "/admin/comments/comment/"


@pytest.fixture
def admin_browser(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def count_of(thing) -> int:
    return Thing.objects.values_list("comment_count", flat=True).get(pk=thing.pk)


def _act(browser, action, comments, **extra):
    data = {"action": action, helpers.ACTION_CHECKBOX_NAME: [c.pk for c in comments], **extra}
    return browser.post(COMMENTS, data)


def test_hide_with_reason_keeps_the_reason_and_lowers_the_counter(admin_browser, api):
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="spam")
    confirm = _act(admin_browser, "hide_with_reason", [comment])
    assert confirm.status_code == 200 and b"reason" in confirm.content
    applied = _act(admin_browser, "hide_with_reason", [comment], apply="1", reason="Spam link")
    assert applied.status_code == 302
    comment.refresh_from_db()
    assert (comment.is_hidden, comment.hidden_reason) == (True, "Spam link")
    assert count_of(thing) == 0
    assert api.get(f"/comments/{comment.pk}/").status_code == 404
    _act(admin_browser, "unhide", [comment])
    comment.refresh_from_db()
    assert not comment.is_hidden and count_of(thing) == 1


def test_hiding_twice_lowers_the_counter_once(admin_browser):
    thing = ThingFactory()
    comment = services.comment_create(user=UserFactory(), target=thing, body="spam")
    services.comment_create(user=UserFactory(), target=thing, body="fine")
    for _ in range(2):
        _act(admin_browser, "hide_with_reason", [comment], apply="1", reason="Spam")
    assert count_of(thing) == 1


def test_the_changelist_filters_and_searches(admin_browser):
    comment = services.comment_create(user=UserFactory(), target=ThingFactory(), body="findable words")
    services.comment_create(user=UserFactory(), target=ThingFactory(), body="other")
    response = admin_browser.get(COMMENTS, {"q": "findable", "target_type__exact": "thing"})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [comment]


def test_the_change_page_is_read_only_and_nothing_is_added(admin_browser):
    comment = services.comment_create(user=UserFactory(), target=ThingFactory(), body="x")
    response = admin_browser.get(f"{COMMENTS}{comment.pk}/change/")
    assert response.status_code == 200
    assert "body" not in response.context["adminform"].form.fields
    assert admin_browser.get(f"{COMMENTS}add/").status_code == 403


def test_deleting_in_the_admin_keeps_counters_and_threads(admin_browser):
    thing = ThingFactory()
    top = services.comment_create(user=UserFactory(), target=thing, body="q")
    reply = services.comment_reply(user=UserFactory(), comment=top, body="a")
    lone = services.comment_create(user=UserFactory(), target=thing, body="x")
    response = _act(admin_browser, "delete_selected", [top, lone], post="yes")
    assert response.status_code == 302
    assert set(Comment.objects.values_list("pk", "is_deleted")) == {(top.pk, True), (reply.pk, False)}
    assert count_of(thing) == 1
    admin_browser.post(f"{COMMENTS}{reply.pk}/delete/", {"post": "yes"})
    assert not Comment.objects.exists() and count_of(thing) == 0
