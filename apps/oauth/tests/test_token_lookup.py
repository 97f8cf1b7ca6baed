"""access_token_get_active: the hand-written join must build the same objects the ORM would."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.oauth.selectors import access_token_get_active
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory


@pytest.mark.django_db
def test_it_loads_the_token_with_its_user_and_application_fields_in_place():
    app = ApplicationFactory(approval_state="pending", app_type="thing")
    token = AccessTokenFactory(application=app)

    found = access_token_get_active(token=token.token)

    assert (found.pk, found.user_id, found.application_id, found.scope) == (
        token.pk, token.user_id, app.pk, token.scope,
    )
    assert found.user.username == token.user.username and found.user.email == token.user.email
    assert (found.application.client_id, found.application.app_type, found.application.approval_state) == (
        app.client_id, "thing", "pending",
    )
    assert found.application.user_id == app.user_id


@pytest.mark.django_db
def test_fields_it_does_not_select_still_load_on_access(django_assert_num_queries):
    token = AccessTokenFactory()
    found = access_token_get_active(token=token.token)
    with django_assert_num_queries(1):  # the deferred field, loaded once
        assert found.application.redirect_uris == token.application.redirect_uris


@pytest.mark.django_db
def test_it_refuses_expired_tokens_and_suspended_users():
    expired = AccessTokenFactory(expires=timezone.now() - timedelta(seconds=1))
    suspended = AccessTokenFactory()
    suspended.user.is_active = False
    suspended.user.save(update_fields=["is_active"])

    assert access_token_get_active(token=expired.token) is None
    assert access_token_get_active(token=suspended.token) is None
    assert access_token_get_active(token="0" * 32) is None


@pytest.mark.django_db
def test_an_app_read_only_token_has_no_user():
    token = AccessTokenFactory(user=None)
    found = access_token_get_active(token=token.token)
    assert found.user is None and found.application.pk == token.application_id
