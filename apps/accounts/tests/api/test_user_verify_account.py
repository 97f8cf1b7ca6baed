"""POST /users/{username}/verify-account (spec §4.1) and the link's site page /account/verify/<token>."""

import re

import pytest
from django.core import mail

from apps.accounts.models import User
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db


def _link(message) -> str:
    match = re.search(r"http://testserver(/account/verify/\S+)", message.body)
    assert match is not None, message.body
    return match.group(1)


def test_it_mails_a_link_that_verifies_the_address(api, user, client):
    response = api.post("/users/me/verify-account")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
    [message] = mail.outbox
    assert message.to == [user.email]

    page = client.get(_link(message))
    assert page.status_code == 200
    assert b"is confirmed" in page.content
    user.refresh_from_db()
    assert user.email_verified


def test_a_forged_link_is_a_400_page(client, user):
    page = client.get("/account/verify/forged:token:here")
    assert page.status_code == 400
    assert b"not valid" in page.content


def test_an_already_verified_user_gets_ok_and_no_mail(api, user):
    User.objects.filter(pk=user.pk).update(email_verified=True)
    assert api.post(f"/users/{user.username}/verify-account").json() == {"ok": True}
    assert mail.outbox == []


def test_a_user_without_email_is_400(client_for):
    from apps.accounts.tests.factories import UserFactory

    client = client_for(UserFactory(email=""))
    assert_error(client.post("/users/me/verify-account"), 400, "RULE_VIOLATION")
    assert mail.outbox == []


def test_another_user_is_403(api, other_user):
    assert_error(api.post(f"/users/{other_user.username}/verify-account"), 403)
    assert mail.outbox == []
