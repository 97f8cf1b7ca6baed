"""The user's side of issue 16: the consent page says who asks, for what and where the browser goes;
/account/apps lists what each app may do and when it was last used; revoking asks first. And the
last-use stamps behind those pages (apps.oauth.usage)."""
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from tests.support.api import csrf_token
from apps.oauth import services
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import ApplicationFactory
from apps.oauth.tests.flow import authorize_url, exchange_form, get_code, token_params

Application = get_application_model()
pytestmark = pytest.mark.django_db


def _revoke(app):
    return f"/account/apps/{app.pk}/revoke"


# --- the consent page ------------------------------------------------------------------------------


def test_the_consent_page_names_the_app_its_developer_scopes_and_the_redirect_host(browser, application):
    Application.objects.filter(pk=application.pk).update(
        redirect_uris="https://app.example.com/callback http://localhost:5173/cb"
    )
    page = browser.get(authorize_url(application, redirect_uri="http://localhost:5173/cb"))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Authorize {application.name}" in html
    assert f"by <strong>{application.user.username}</strong>" in html
    assert 'id="consent-approval">Approved by Thingyard' in html
    assert '<dd id="consent-redirect">you will be sent to <strong>localhost:5173</strong></dd>' in html
    assert "<li>Read your data</li>" in html and "<li>Change your data</li>" in html
    # Allow is the primary action, Deny the secondary one
    assert html.index('class="btn-primary">Allow') < html.index('class="btn-secondary">Deny')


def test_the_consent_page_names_the_default_callback_host(browser, application):
    html = browser.get(authorize_url(application)).content.decode()
    assert "you will be sent to <strong>app.example.com</strong>" in html


def test_an_unapproved_app_is_marked_unverified(browser, pending_app):
    html = browser.get(authorize_url(pending_app)).content.decode()
    assert 'id="consent-approval">Unverified' in html and "Unverified app." in html


def test_the_consent_page_shows_the_logo(browser, application):
    Application.objects.filter(pk=application.pk).update(logo=f"app-logos/{application.pk}/abc.png")
    html = browser.get(authorize_url(application)).content.decode()
    assert f"app-logos/{application.pk}/abc.png" in html and f'alt="{application.name} logo"' in html


def test_without_a_logo_the_consent_page_shows_the_initial(browser, application):
    html = browser.get(authorize_url(application)).content.decode()
    assert 'class="app-logo app-logo-initial"' in html


def test_consent_records_the_granted_scopes(browser, user, application):
    get_code(browser, application, scope="read")
    assert AppAuthorization.objects.get(user=user, application=application).scope == "read"
    get_code(browser, application, scope="write", prompt="consent")
    assert AppAuthorization.objects.get(user=user, application=application).scope == "read write"


# --- /account/apps -----------------------------------------------------------------------------------


def test_authorized_apps_list_what_each_may_do_and_when_it_was_last_used(browser, user, application):
    services.authorization_grant(application=application, user=user, scope="read")
    never = ApplicationFactory(name="Quiet App")
    services.authorization_grant(application=never, user=user, scope="")
    AppAuthorization.objects.filter(application=application).update(
        last_used_at=timezone.now().replace(year=2026, month=5, day=6, hour=7, minute=8)
    )
    html = browser.get("/account/apps").content.decode()

    def item(app):
        start = html.index(f'id="authorized-app-{app.pk}"')
        return html[start:html.index("</li>\n", html.index('class="btn btn-danger', start))]

    mine, quiet = item(application), item(never)
    assert "last used 2026-05-06 07:08 UTC" in mine
    assert "<li>Read your data</li>" in mine and "Change your data" not in mine
    assert "not used yet" in quiet
    # an empty grant is the default one: both scopes
    assert "<li>Read your data</li>" in quiet and "<li>Change your data</li>" in quiet
    assert f'href="{_revoke(application)}"' in html


def test_the_list_costs_the_same_queries_for_1_and_10_apps(browser, user, django_assert_num_queries):
    for count in (1, 10):
        AppAuthorization.objects.filter(user=user).delete()
        for _ in range(count):
            services.authorization_grant(application=ApplicationFactory(), user=user)
        # 1 session, 2 user, 3 the authorizations with their apps and developers
        with django_assert_num_queries(3):
            assert browser.get("/account/apps").status_code == 200


# --- revoking asks first ---------------------------------------------------------------------------


def test_revoke_asks_for_confirmation_first(browser, user, application):
    services.authorization_grant(application=application, user=user, scope="read")
    page = browser.get(_revoke(application))
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Revoke access for {application.name}?" in html
    assert f'<form method="post" action="{_revoke(application)}"' in html
    assert "<li>Read your data</li>" in html
    assert AppAuthorization.objects.filter(user=user, application=application).exists()  # GET changes nothing


def test_the_confirm_page_needs_a_login(application):
    response = Client().get(_revoke(application))
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=")


def test_the_confirm_page_of_an_app_not_authorized_is_404(browser, other_user, application):
    services.authorization_grant(application=application, user=other_user)
    assert browser.get(_revoke(application)).status_code == 404
    assert browser.post(_revoke(application)).status_code == 404
    assert AppAuthorization.objects.filter(user=other_user).exists()


def test_the_revoke_post_needs_the_csrf_token(user, application):
    services.authorization_grant(application=application, user=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(_revoke(application)).status_code == 403
    assert AppAuthorization.objects.filter(user=user).exists()
    client.get(_revoke(application))
    response = client.post(_revoke(application), {"csrfmiddlewaretoken": csrf_token(client)})
    assert response.status_code == 302
    assert not AppAuthorization.objects.filter(user=user).exists()


# --- last-use stamps -------------------------------------------------------------------------------


@pytest.fixture
def unused_app(db):
    return ApplicationFactory(last_used_at=None)


def _user_token(browser, app):
    code = get_code(browser, app)
    return exchange_form(Client(), token_params(app, code), HTTP_ACCEPT="application/json").json()["access_token"]


def test_authenticating_with_the_client_secret_stamps_the_app(browser, unused_app):
    _user_token(browser, unused_app)
    unused_app.refresh_from_db()
    assert unused_app.last_used_at is not None
    assert timezone.now() - unused_app.last_used_at < timedelta(seconds=30)


def test_a_used_token_stamps_the_app_and_the_users_authorization(browser, user, unused_app):
    token = _user_token(browser, unused_app)
    Application.objects.filter(pk=unused_app.pk).update(last_used_at=None)
    assert AppAuthorization.objects.get(user=user).last_used_at is None

    assert Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200

    unused_app.refresh_from_db()
    authorization = AppAuthorization.objects.get(user=user)
    assert unused_app.last_used_at is not None and authorization.last_used_at is not None


@pytest.mark.caches_off  # the statements of the uncached path: a cached token row brings its stamps along
def test_stamps_are_written_at_most_once_a_minute(browser, user, unused_app):
    token = _user_token(browser, unused_app)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    def stamps(queries):
        return [q for q in queries if q["sql"].startswith("UPDATE") and "last_used_at" in q["sql"]]

    with CaptureQueriesContext(connection) as first:
        api.get("/users/me")
    assert len(stamps(first.captured_queries)) == 1  # the authorization (the exchange stamped the app)
    with CaptureQueriesContext(connection) as second:
        api.get("/users/me")
    assert stamps(second.captured_queries) == []
    assert len(second.captured_queries) == 1  # only the token lookup, which brings the stamps along

    # a minute later the next use writes again: the app and the authorization, once each
    old = timezone.now() - timedelta(minutes=2)
    Application.objects.filter(pk=unused_app.pk).update(last_used_at=old)
    AppAuthorization.objects.filter(user=user).update(last_used_at=old)
    with CaptureQueriesContext(connection) as again:
        api.get("/users/me")
    assert len(stamps(again.captured_queries)) == 2


def test_the_read_only_token_stamps_the_app(unused_app):
    token = get_access_token_model().objects.create(
        user=None, application=unused_app, token="ab" * 16, scope="orders:read",
        expires=timezone.now() + timedelta(days=1),
    )
    Client().get("/orders", HTTP_AUTHORIZATION=f"Bearer {token.token}")
    unused_app.refresh_from_db()
    assert unused_app.last_used_at is not None
