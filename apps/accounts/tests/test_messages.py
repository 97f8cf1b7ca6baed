"""Private messages (issue 5): the site's inbox at /account/messages, writing at /account/messages/new,
the services behind them, the admin's read-only listing, and GET /users/unread-message-count."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts import rules, services
from apps.accounts.models import Message
from apps.accounts.tests.factories import MessageFactory, UserFactory
from apps.core.domain.exceptions import RateLimited, ValidationFailed

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


def _unread(api) -> int:
    return api.get("/users/unread-message-count").json()["count"]


# --- services ----------------------------------------------------------------------------------------


def test_send_delivers_to_the_named_user_in_any_case(user, other_user):
    message = services.message_send(sender=user, to=f"  {other_user.username.upper()} ", body="  Hello!  ")
    assert (message.sender, message.recipient, message.body) == (user, other_user, "Hello!")
    assert message.read_at is None


@pytest.mark.parametrize(
    "to,body,field",
    [
        ("nobody-here", "Hi", "to"),
        ("", "Hi", "to"),
        ("me", "Hi", "to"),  # `me` names nobody here: the form wants a user name
        ("{other}", "   ", "body"),
        ("{other}", "x" * (rules.MESSAGE_BODY_MAX_LENGTH + 1), "body"),
        ("{self}", "Hi", "to"),
    ],
)
def test_send_refuses_bad_recipients_and_bodies(user, other_user, to, body, field):
    to = to.format(other=other_user.username, self=user.username)
    with pytest.raises(ValidationFailed) as caught:
        services.message_send(sender=user, to=to, body=body)
    assert field in caught.value.errors
    assert not Message.objects.exists()


def test_send_refuses_a_suspended_recipient(user):
    suspended = UserFactory(is_active=False)
    with pytest.raises(ValidationFailed):
        services.message_send(sender=user, to=suspended.username, body="Hi")


def test_send_is_limited_per_hour(user, other_user):
    MessageFactory.create_batch(rules.MESSAGES_PER_HOUR - 1, sender=user)
    old = MessageFactory(sender=user)
    Message.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(hours=2))
    services.message_send(sender=user, to=other_user.username, body="The last one this hour")
    with pytest.raises(RateLimited) as caught:
        services.message_send(sender=user, to=other_user.username, body="One too many")
    assert caught.value.status_code == 429
    assert Message.objects.filter(sender=user).count() == rules.MESSAGES_PER_HOUR + 1


def test_mark_read_is_for_the_recipient_and_only_once(user, other_user):
    message = MessageFactory(sender=other_user, recipient=user)
    assert not services.message_mark_read(message=message, user=other_user)
    assert services.message_mark_read(message=message, user=user)
    first = Message.objects.get(pk=message.pk).read_at
    assert first is not None
    assert not services.message_mark_read(message=message, user=user)
    assert Message.objects.get(pk=message.pk).read_at == first


# --- unread-message-count ----------------------------------------------------------------------------


def test_the_unread_count_follows_sending_and_reading(api, user, other_user, client_for):
    assert _unread(api) == 0
    message = services.message_send(sender=other_user, to=user.username, body="Hi")
    services.message_send(sender=other_user, to=user.username, body="Again")
    assert _unread(api) == 2 and _unread(client_for(other_user)) == 0
    services.message_mark_read(message=message, user=user)
    assert _unread(api) == 1
    services.message_mark_all_read(user=user)
    assert _unread(api) == 0


def test_a_suspended_senders_messages_are_withheld(api, user, other_user):
    MessageFactory(sender=other_user, recipient=user)
    services.user_suspend(user=other_user, reason="Spam")
    assert _unread(api) == 0
    services.user_unsuspend(user=other_user)
    assert _unread(api) == 1


# --- site pages ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/account/messages", "/account/messages/new", "/account/messages/1", "/account/messages?box=sent"],
)
def test_the_pages_need_a_login(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_inbox_lists_received_messages_newest_first_with_unread_marked(browser, user, other_user):
    older = MessageFactory(sender=other_user, recipient=user, body="Older note", read_at=timezone.now())
    newer = MessageFactory(sender=other_user, recipient=user, body="Newer note")
    MessageFactory(sender=user, recipient=other_user, body="My own note")
    MessageFactory(body="Somebody else's note")
    response = browser.get("/account/messages")
    assert response.status_code == 200
    assert list(response.context["page"].object_list) == [newer, older]
    html = response.content.decode()
    assert html.index("Newer note") < html.index("Older note") and "(unread)" in html
    assert "My own note" not in html and "Somebody else" not in html
    assert response.context["unread"] == 1


def test_the_sent_box_lists_what_one_sent(browser, user, other_user):
    mine = MessageFactory(sender=user, recipient=other_user, body="My own note")
    MessageFactory(sender=other_user, recipient=user)
    response = browser.get("/account/messages", {"box": "sent"})
    assert list(response.context["page"].object_list) == [mine]
    assert other_user.username in response.content.decode()


def test_opening_a_received_message_marks_it_read(browser, api, user, other_user):
    message = MessageFactory(sender=other_user, recipient=user, body="Read me <b>now</b>")
    assert _unread(api) == 1
    response = browser.get(f"/account/messages/{message.pk}")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Read me &lt;b&gt;now&lt;/b&gt;" in html
    assert f"/account/messages/new?to={other_user.username}" in html
    assert Message.objects.get(pk=message.pk).read_at is not None
    assert _unread(api) == 0


def test_the_sender_can_open_a_sent_message_without_reading_it_for_the_recipient(browser, user, other_user):
    message = MessageFactory(sender=user, recipient=other_user)
    assert browser.get(f"/account/messages/{message.pk}").status_code == 200
    assert Message.objects.get(pk=message.pk).read_at is None


def test_someone_elses_or_an_unknown_message_is_404(browser):
    assert browser.get(f"/account/messages/{MessageFactory().pk}").status_code == 404
    assert browser.get("/account/messages/999999").status_code == 404


def test_writing_sends_and_shows_the_sent_box(browser, user, other_user):
    form = browser.get("/account/messages/new", {"to": other_user.username})
    assert form.status_code == 200 and form.context["form"]["to"].value() == other_user.username
    response = browser.post("/account/messages/new", {"to": other_user.username, "body": "Nice print!"})
    assert response.status_code == 302 and response["Location"] == "/account/messages?box=sent"
    assert Message.objects.get().body == "Nice print!"


def test_writing_to_an_unknown_user_shows_the_error(browser):
    response = browser.post("/account/messages/new", {"to": "nobody-here", "body": "Hi"})
    assert response.status_code == 400
    assert "No user has that name." in response.content.decode()
    assert not Message.objects.exists()


def test_writing_too_long_a_message_is_refused_by_the_form(browser, other_user):
    body = "x" * (rules.MESSAGE_BODY_MAX_LENGTH + 1)
    response = browser.post("/account/messages/new", {"to": other_user.username, "body": body})
    assert response.status_code == 400 and "body" in response.context["form"].errors


def test_writing_past_the_hourly_limit_is_429(browser, user, other_user):
    MessageFactory.create_batch(rules.MESSAGES_PER_HOUR, sender=user)
    response = browser.post("/account/messages/new", {"to": other_user.username, "body": "Hi"})
    assert response.status_code == 429
    assert "at most" in response.content.decode()


def test_mark_all_read(browser, api, user):
    MessageFactory.create_batch(3, recipient=user)
    response = browser.post("/account/messages/read-all")
    assert response.status_code == 302
    assert _unread(api) == 0


def test_the_forms_are_csrf_protected(user, other_user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post("/account/messages/new", {"to": other_user.username, "body": "Hi"}).status_code == 403
    assert browser.post("/account/messages/read-all").status_code == 403
    assert not Message.objects.exists()


def test_mark_all_read_is_post_only(browser):
    assert browser.get("/account/messages/read-all").status_code == 405


def test_the_account_page_links_the_inbox_with_the_unread_count(browser, user):
    MessageFactory.create_batch(2, recipient=user)
    html = browser.get("/account/").content.decode()
    assert 'href="/account/messages"' in html and "(2 unread)" in html


@pytest.mark.parametrize("rows", [1, 30])
def test_the_inbox_query_count_does_not_grow(browser, user, rows, django_assert_num_queries):
    MessageFactory.create_batch(rows, recipient=user)
    browser.get("/account/messages")  # warm-up
    # session; user; COUNT for the paginator; page of messages with senders; unread COUNT
    with django_assert_num_queries(5):
        assert browser.get("/account/messages").status_code == 200


# --- admin ---------------------------------------------------------------------------------------------


def test_the_admin_lists_messages_read_only():
    admin = UserFactory(is_staff=True, is_superuser=True)
    browser = Client()
    browser.force_login(admin)
    message = MessageFactory(body="Please buy my pills")
    listing = browser.get("/admin/accounts/message/", {"q": message.sender.username})
    assert listing.status_code == 200 and "Please buy my pills" in listing.content.decode()
    assert browser.get("/admin/accounts/message/", {"read_at__isempty": "1"}).status_code == 200
    page = browser.get(f"/admin/accounts/message/{message.pk}/change/")
    assert page.status_code == 200 and "Please buy my pills" in page.content.decode()
    assert browser.get("/admin/accounts/message/add/").status_code == 403
    assert browser.post(f"/admin/accounts/message/{message.pk}/change/", {"body": "x"}).status_code == 403
