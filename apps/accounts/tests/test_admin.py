"""The user admin's moderation actions go through services."""

import pytest
from django.contrib.admin import helpers
from django.test import Client
from oauth2_provider.models import get_access_token_model

from apps.accounts.models import User
from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.factories import AccessTokenFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/accounts/user/"


class AdminClient(Client):
    """A browser signed in as `admin` (the staff user it carries)."""

    admin: User


@pytest.fixture
def admin_browser(db):
    admin = UserFactory(is_staff=True, is_superuser=True)
    client = AdminClient()
    client.force_login(admin)
    client.admin = admin
    return client


def test_the_changelist_searches_and_filters(admin_browser, user):
    assert admin_browser.get(CHANGELIST, {"q": user.username, "is_active__exact": "1"}).status_code == 200
    assert admin_browser.get(f"{CHANGELIST}{user.pk}/change/").status_code == 200
    assert admin_browser.get(f"{CHANGELIST}add/").status_code == 200


def test_suspend_asks_for_a_reason_first(admin_browser, user):
    response = admin_browser.post(
        CHANGELIST, {"action": "suspend_users", helpers.ACTION_CHECKBOX_NAME: [user.pk]}
    )
    assert response.status_code == 200
    assert b"reason" in response.content
    user.refresh_from_db()
    assert user.is_active


def test_suspend_with_a_reason_locks_the_account_and_revokes_tokens(admin_browser, user):
    AccessTokenFactory(user=user)
    response = admin_browser.post(
        CHANGELIST,
        {"action": "suspend_users", helpers.ACTION_CHECKBOX_NAME: [user.pk], "apply": "1", "reason": "Spam"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.is_active, user.suspended_reason) == (False, "Spam")
    assert not get_access_token_model().objects.filter(user=user).exists()


def test_a_suspended_users_token_is_401(admin_browser, user, api):
    admin_browser.post(
        CHANGELIST,
        {"action": "suspend_users", helpers.ACTION_CHECKBOX_NAME: [user.pk], "apply": "1", "reason": "Spam"},
    )
    assert api.get("/users/me/").status_code == 401


def test_unsuspend_reopens_accounts(admin_browser):
    suspended = UserFactory(is_active=False, suspended_reason="Spam")
    admin_browser.post(
        CHANGELIST, {"action": "unsuspend_users", helpers.ACTION_CHECKBOX_NAME: [suspended.pk]}
    )
    suspended.refresh_from_db()
    assert (suspended.is_active, suspended.suspended_reason) == (True, "")


def test_the_admin_cannot_suspend_themselves(admin_browser):
    admin_browser.post(
        CHANGELIST,
        {
            "action": "suspend_users",
            helpers.ACTION_CHECKBOX_NAME: [admin_browser.admin.pk],
            "apply": "1",
            "reason": "oops",
        },
    )
    assert User.objects.get(pk=admin_browser.admin.pk).is_active
