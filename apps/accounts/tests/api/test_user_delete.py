"""DELETE /users/{username}/: own account only, "Restricted" = approved applications only (rules.py)."""

import pytest
from oauth2_provider.models import get_access_token_model

from apps.accounts.models import User
from tests.support.api import assert_error, assert_unauthorized

pytestmark = pytest.mark.django_db


def test_it_deletes_the_account_and_its_tokens(api, user):
    response = api.delete(f"/users/{user.username}/")
    assert response.status_code == 200
    assert response.content == b""
    assert not User.objects.filter(pk=user.pk).exists()
    assert not get_access_token_model().objects.filter(user_id=user.pk).exists()


def test_the_token_stops_working_afterwards(api):
    assert api.delete("/users/me").status_code == 200
    assert_unauthorized(api.get("/users/me/"))


def test_an_unapproved_application_is_403(client_for, user, unapproved_application):
    client = client_for(user, app=unapproved_application)
    assert_error(client.delete("/users/me/"), 403, "FORBIDDEN")
    assert User.objects.filter(pk=user.pk).exists()
