"""Accounts people can keep (issue 26): password reset by e-mail, change of password and of address,
avatar and cover from the account page, closing the account. Site pages, session login."""

import re

import pytest
from django.core import mail
from django.test import Client

from apps.accounts.models import User
from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import AccessTokenFactory

pytestmark = pytest.mark.django_db

PASSWORD = "pass-word-123"
NEW_PASSWORD = "a-new-and-long-password-7"


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _link(message, pattern: str) -> str:
    match = re.search(rf"http://testserver({pattern})", message.body)
    assert match, message.body
    return match.group(1)


# --- password reset ------------------------------------------------------------------------------------


def test_the_login_page_links_to_the_password_reset(client):
    html = client.get("/login/").content.decode()
    assert 'href="/password_reset/"' in html and "Forgot your password?" in html


def test_a_reset_link_sets_a_new_password_once(client, user):
    response = client.post("/password_reset/", {"email": user.email.upper()})
    assert response.status_code == 302 and response["Location"] == "/password_reset/done/"
    reset_mail = next(m for m in mail.outbox if m.subject == "Reset your Thingyard password")
    assert reset_mail.to == [user.email]
    link = _link(reset_mail, r"/reset/[^/\s]+/[^/\s]+/")

    form = client.get(link, follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0] if form.redirect_chain else link,
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done["Location"] == "/reset/done/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert any(m.subject == "Your Thingyard password was changed" for m in mail.outbox)

    # The link worked once: opened again it says so.
    again = Client().get(link, follow=True)
    assert "This link does not work any more" in again.content.decode()


def test_a_reset_for_an_unknown_address_answers_the_same_and_sends_nothing(client):
    response = client.post("/password_reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302 and response["Location"] == "/password_reset/done/"
    assert mail.outbox == []


def test_a_reset_skips_inactive_accounts(client):
    gone = UserFactory(is_active=False)
    client.post("/password_reset/", {"email": gone.email})
    assert mail.outbox == []


def test_a_bad_address_is_a_form_error_not_a_500(client):
    response = client.post("/password_reset/", {"email": "not an address"})
    assert response.status_code == 400
    assert "Enter a valid email address" in response.content.decode()


def test_reset_requests_for_one_address_are_limited(client, user):
    statuses = [client.post("/password_reset/", {"email": user.email}).status_code for _ in range(4)]
    assert statuses[:3] == [302, 302, 302]
    assert statuses[3] == 429
    assert len([m for m in mail.outbox if m.subject == "Reset your Thingyard password"]) == 3


def test_a_forged_reset_link_is_refused(client, user):
    response = client.get("/reset/MQ/not-a-token/", follow=True)
    assert "This link does not work any more" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


# --- change password -----------------------------------------------------------------------------------


def test_a_member_changes_the_password_and_stays_signed_in(user):
    browser = _signed_in(user)
    response = browser.post(
        "/account/password",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == "/account/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert browser.get("/account/").status_code == 200  # this session kept
    assert any(m.subject == "Your Thingyard password was changed" for m in mail.outbox)


def test_a_wrong_current_password_changes_nothing(user):
    response = _signed_in(user).post(
        "/account/password",
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_the_password_pages_need_a_session(client):
    for path in ("/account/password", "/account/email", "/account/close"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


# --- change e-mail address -----------------------------------------------------------------------------


def test_an_address_change_takes_effect_from_the_new_address(user):
    old = user.email
    browser = _signed_in(user)
    response = browser.post("/account/email", {"email": "new@example.org", "password": PASSWORD})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.email == old  # not before the link is opened
    confirm = next(m for m in mail.outbox if m.to == ["new@example.org"])
    notice = next(m for m in mail.outbox if m.to == [old])
    assert "new@example.org" in notice.body
    link = _link(confirm, r"/account/email/confirm/\S+")

    page = Client().get(link)
    assert page.status_code == 200
    user.refresh_from_db()
    assert user.email == "new@example.org" and user.email_verified

    # Once used, the address it was sent for is gone: the same link is refused.
    assert Client().get(link).status_code == 400


def test_an_address_change_needs_the_current_password(user):
    response = _signed_in(user).post("/account/email", {"email": "new@example.org", "password": "wrong"})
    assert response.status_code == 400
    assert "not your current password" in response.content.decode()
    assert mail.outbox == []


def test_a_tampered_confirmation_link_is_refused(user):
    _signed_in(user).post("/account/email", {"email": "new@example.org", "password": PASSWORD})
    link = _link(next(m for m in mail.outbox if m.to == ["new@example.org"]), r"/account/email/confirm/\S+")
    tampered = link.replace("new@example.org", "evil@example.org")
    assert Client().get(tampered + "x").status_code == 400
    user.refresh_from_db()
    assert user.email != "new@example.org"


# --- close the account ---------------------------------------------------------------------------------


def test_the_close_page_says_what_is_removed(user):
    from apps.things.tests.factories import ThingFactory

    ThingFactory(creator=user)
    html = _signed_in(user).get("/account/close").content.decode()
    assert "This cannot be undone" in html
    assert "your 1 Thing " in html


def test_closing_the_account_removes_it_and_its_tokens(user):
    token = AccessTokenFactory(user=user)
    browser = _signed_in(user)
    response = browser.post("/account/close", {"password": PASSWORD, "confirm_username": user.username})
    assert response.status_code == 302 and response["Location"] == "/"
    assert not User.objects.filter(pk=user.pk).exists()
    assert not type(token).objects.filter(pk=token.pk).exists()
    assert browser.get("/account/").status_code == 302  # signed out


def test_closing_needs_the_password_and_the_user_name(user):
    browser = _signed_in(user)
    wrong_password = browser.post("/account/close", {"password": "nope", "confirm_username": user.username})
    wrong_name = browser.post("/account/close", {"password": PASSWORD, "confirm_username": "someone"})
    assert wrong_password.status_code == 400 and wrong_name.status_code == 400
    assert User.objects.filter(pk=user.pk).exists()


# --- avatar and cover ----------------------------------------------------------------------------------


def test_the_account_page_offers_avatar_and_cover_uploads(user):
    html = _signed_in(user).get("/account/").content.decode()
    assert 'data-start-url="/account/uploads/avatar"' in html
    assert 'data-start-url="/account/uploads/cover"' in html


@pytest.mark.parametrize("field", ["avatar", "cover"])
def test_an_avatar_or_cover_upload_starts_through_the_upload_flow(user, field):
    response = _signed_in(user).post(
        f"/account/uploads/{field}", {"filename": "me.png"}, content_type="application/json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["fields"]["key"] and body["action"]


def test_a_profile_picture_must_be_an_image(user):
    response = _signed_in(user).post(
        "/account/uploads/avatar",
        {"filename": "tool.exe"},
        content_type="application/json",
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 400
    assert response.json()["ok"] is False


def test_an_unknown_picture_field_is_404(user):
    response = _signed_in(user).post(
        "/account/uploads/banner", {"filename": "me.png"}, content_type="application/json"
    )
    assert response.status_code == 404
