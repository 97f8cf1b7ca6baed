"""/account/apps: users list the apps they authorized and revoke them."""
import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model

from apps.oauth import services
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.oauth.tests.flow import authorize_url, exchange_form, get_code, token_params


@pytest.mark.django_db
def test_the_page_needs_a_login():
    response = Client().get("/account/apps")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.django_db
def test_the_page_lists_the_users_authorized_apps_only(browser, user, other_user, application):
    services.authorization_grant(application=application, user=user)
    not_mine = ApplicationFactory(name="Somebody else's app")
    services.authorization_grant(application=not_mine, user=other_user)
    response = browser.get("/account/apps")
    assert response.status_code == 200
    body = response.content.decode()
    assert application.name in body
    assert "Somebody else" not in body
    assert "Revoke" in body


@pytest.mark.django_db
def test_revoking_an_app_deletes_its_tokens_and_the_api_answers_401(browser, user, application):
    code = get_code(browser, application)
    tokens = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json").json()
    browser.get(authorize_url(application))  # consent remembered: an unused code too
    assert get_grant_model().objects.filter(user=user).exists()
    assert Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}").status_code == 200

    csrf_browser = Client(enforce_csrf_checks=True)
    csrf_browser.force_login(user)
    page = csrf_browser.get("/account/apps")
    csrf = page.context["csrf_token"]
    response = csrf_browser.post(f"/account/apps/{application.pk}/revoke", {"csrfmiddlewaretoken": str(csrf)})
    assert response.status_code == 302
    assert response["Location"] == "/account/apps"

    assert not AppAuthorization.objects.filter(user=user).exists()
    assert not get_access_token_model().objects.filter(user=user).exists()
    assert not get_refresh_token_model().objects.filter(user=user).exists()
    assert not get_grant_model().objects.filter(user=user).exists()
    assert Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}").status_code == 401
    refresh = exchange_form(
        Client(),
        {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
         "client_id": application.client_id, "client_secret": APP_SECRET},
    )
    assert refresh.status_code == 400


@pytest.mark.django_db
def test_revoke_needs_the_csrf_token(user, application):
    services.authorization_grant(application=application, user=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(f"/account/apps/{application.pk}/revoke").status_code == 403
    assert AppAuthorization.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_revoking_an_app_the_user_never_authorized_is_404(browser, other_user, application):
    services.authorization_grant(application=application, user=other_user)
    response = browser.post(f"/account/apps/{application.pk}/revoke")
    assert response.status_code == 404
    assert AppAuthorization.objects.filter(user=other_user).exists()


@pytest.mark.django_db
def test_revoking_leaves_other_users_tokens_alone(user, other_user, application, client_for):
    services.authorization_grant(application=application, user=user)
    services.authorization_grant(application=application, user=other_user)
    theirs = client_for(other_user)
    client_for(user)
    services.authorization_revoke(user=user, application=application)
    assert theirs.get("/users/me").status_code == 200


@pytest.mark.django_db
def test_revoking_frees_a_slot_of_an_unapproved_app(pending_app, user):
    from apps.oauth import selectors

    services.authorization_grant(application=pending_app, user=user)
    services.authorization_revoke(user=user, application=pending_app)
    assert selectors.application_user_count(application=pending_app) == 0
