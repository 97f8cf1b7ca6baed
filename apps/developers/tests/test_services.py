import hashlib
import re
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import check_password
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.core.domain.exceptions import RuleViolation, ValidationFailed
from apps.developers import selectors, services
from apps.developers.models import ReviewRequest
from apps.developers.tests.helpers import valid_registration
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory

Application = get_application_model()
AccessToken = get_access_token_model()
pytestmark = pytest.mark.django_db


def test_register_creates_a_pending_confidential_app_and_stores_only_the_secret_hash(owner):
    application, secret = services.application_register(owner=owner, **valid_registration())

    application.refresh_from_db()
    assert application.user == owner
    assert application.approval_state == "pending"
    assert application.client_type == "confidential"
    assert application.authorization_grant_type == "authorization-code"
    assert application.redirect_uris == "https://buddy.example.com/oauth/callback"
    assert application.client_secret != secret
    assert check_password(secret, application.client_secret)
    assert application.webhook_secret.startswith("whsec_")


def test_register_refuses_a_web_app_without_application_url(owner):
    with pytest.raises(ValidationFailed) as exc:
        services.application_register(owner=owner, **valid_registration(application_url=""))
    assert list(exc.value.errors) == ["application_url"]
    assert not Application.objects.exists()


def test_register_reports_the_models_own_field_checks_per_field(owner):
    with pytest.raises(ValidationFailed) as exc:
        services.application_register(owner=owner, **valid_registration(name="x" * 300))
    assert "name" in exc.value.errors


def test_rotate_secret_makes_the_old_secret_fail_and_the_new_one_pass(own_app):
    old_hash = own_app.client_secret

    new_secret = services.application_rotate_secret(application=own_app)

    own_app.refresh_from_db()
    assert own_app.client_secret != old_hash
    assert not check_password("test-client-secret-0123456789", own_app.client_secret)
    assert check_password(new_secret, own_app.client_secret)


def test_rotate_webhook_secret_replaces_it_with_a_new_whsec_secret(own_app):
    old = own_app.webhook_secret

    new = services.application_rotate_webhook_secret(application=own_app)

    own_app.refresh_from_db()
    assert own_app.webhook_secret == new != old
    assert new.startswith("whsec_")


def test_update_refuses_a_webhook_url_on_a_private_address(own_app, settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False
    with pytest.raises(ValidationFailed) as exc:
        services.application_update(application=own_app, webhook_url="http://10.0.0.5/hook")
    assert list(exc.value.errors) == ["webhook_url"]
    own_app.refresh_from_db()
    assert own_app.webhook_url == ""


def test_update_changes_only_the_given_fields(own_app):
    services.application_update(application=own_app, name="Renamed", webhook_url="https://93.184.215.14/h")

    own_app.refresh_from_db()
    assert own_app.name == "Renamed"
    assert own_app.webhook_url == "https://93.184.215.14/h"
    assert own_app.description == "A test application"


def test_issue_readonly_token_creates_an_app_token_without_user_limited_to_reading_orders(own_app):
    token = services.application_issue_readonly_token(application=own_app)
    plain = token.token

    token.refresh_from_db()
    assert re.fullmatch(r"[0-9a-f]{32}", plain)  # returned once, for the page to show
    assert token.token == ""  # the row keeps only the checksum
    assert token.token_checksum == hashlib.sha256(plain.encode()).hexdigest()
    assert token.user is None
    assert token.application == own_app
    assert token.scope == "orders:read"
    assert token.expires > timezone.now() + timedelta(days=3000)


def test_reissuing_the_readonly_token_deletes_the_old_one_and_keeps_user_tokens(own_app):
    user_token = AccessTokenFactory(application=own_app)
    first = services.application_issue_readonly_token(application=own_app)

    second = services.application_issue_readonly_token(application=own_app)

    assert not AccessToken.objects.filter(pk=first.pk).exists()
    assert selectors.application_readonly_token_get(application=own_app) == second
    assert second.token != first.token
    assert AccessToken.objects.filter(pk=user_token.pk).exists()


def test_approve_sets_state_reviewer_and_time(own_app, moderator):
    services.application_approve(application=own_app, moderator=moderator)

    own_app.refresh_from_db()
    assert own_app.approval_state == "approved"
    assert own_app.reviewed_by == moderator
    assert own_app.reviewed_at is not None


def test_approving_an_approved_app_again_changes_nothing(own_app, moderator, other_user):
    services.application_approve(application=own_app, moderator=moderator)
    own_app.refresh_from_db()
    reviewed_at = own_app.reviewed_at

    services.application_approve(application=own_app, moderator=other_user)

    own_app.refresh_from_db()
    assert (own_app.reviewed_by, own_app.reviewed_at) == (moderator, reviewed_at)


def test_reject_records_the_reason(own_app, moderator):
    services.application_reject(application=own_app, moderator=moderator, reason="  No privacy policy.  ")

    own_app.refresh_from_db()
    assert own_app.approval_state == "rejected"
    assert own_app.approval_reason == "No privacy policy."
    assert own_app.reviewed_by == moderator


def test_reject_requires_a_reason(own_app, moderator):
    with pytest.raises(ValidationFailed):
        services.application_reject(application=own_app, moderator=moderator, reason="   ")
    own_app.refresh_from_db()
    assert own_app.approval_state == "pending"


def test_submit_for_review_queues_a_private_app_once(own_app, owner):
    services.application_submit_for_review(application=own_app, submitted_by=owner)
    first = ReviewRequest.objects.get(application=own_app).submitted_at

    services.application_submit_for_review(application=own_app, submitted_by=owner)

    assert ReviewRequest.objects.get(application=own_app).submitted_at == first


def test_submitting_a_rejected_app_puts_it_back_to_pending(own_app, owner, moderator):
    services.application_reject(application=own_app, moderator=moderator, reason="Fix the URL")

    services.application_submit_for_review(application=own_app, submitted_by=owner)

    own_app.refresh_from_db()
    assert own_app.approval_state == "pending"
    assert ReviewRequest.objects.filter(application=own_app).exists()


def test_submit_for_review_refuses_an_app_missing_its_application_url(owner):
    application = ApplicationFactory(user=owner, approval_state="pending", application_url="")
    with pytest.raises(RuleViolation) as exc:
        services.application_submit_for_review(application=application, submitted_by=owner)
    assert exc.value.errors == ["Web and Thing apps must give the application URL."]


def test_delete_removes_the_app_with_its_tokens_and_authorizations(own_app, other_user):
    AccessTokenFactory(application=own_app, user=other_user)
    AppAuthorization.objects.create(application=own_app, user=other_user)

    services.application_delete(application=own_app)

    assert not Application.objects.filter(pk=own_app.pk).exists()
    assert not AccessToken.objects.filter(application_id=own_app.pk).exists()
    assert not AppAuthorization.objects.filter(application_id=own_app.pk).exists()


def test_list_for_owner_counts_authorized_users_and_hides_other_owners_apps(own_app, other_user, owner):
    ApplicationFactory()
    AppAuthorization.objects.create(application=own_app, user=other_user)
    AppAuthorization.objects.create(application=own_app, user=owner)

    apps = list(selectors.application_list_for_owner(owner=owner))

    assert [(a.pk, a.user_count) for a in apps] == [(own_app.pk, 2)]
