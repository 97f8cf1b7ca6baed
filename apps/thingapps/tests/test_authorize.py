"""/thing-apps/authorize: "authorize once" on the OAuth consent page, then back to the Thing page."""

import pytest
from django.test import Client

from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import ApplicationFactory
from tests.support.api import csrf_token
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def url(app, thing):
    return f"/thing-apps/authorize?client_id={app.client_id}&thing_id={thing.pk}"


def test_the_consent_step_is_the_oauth_consent_page(browser, user, thing_app):
    thing = ThingFactory()
    response = browser.get(url(thing_app, thing))
    assert response.status_code == 200
    assert "oauth/authorize.html" in [t.name for t in response.templates]
    html = response.content.decode()
    assert "Authorize Part Painter" in html
    assert "Paints your parts." in html
    assert f"act on your Thingyard account as <strong>{user.username}</strong>" in html
    assert "Read your data" in html and "Change your data" in html
    assert 'name="allow"' in html
    assert "Unverified app" not in html


def test_allowing_records_the_consent_and_goes_back_to_the_thing_page_with_the_app(browser, user, thing_app):
    thing = ThingFactory()
    response = browser.post(
        url(thing_app, thing), {"allow": "Authorize", "csrfmiddlewaretoken": csrf_token(browser)}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/thing:{thing.pk}?app={thing_app.client_id}"
    assert AppAuthorization.objects.filter(user=user, application=thing_app).exists()


def test_denying_goes_back_to_the_thing_page_without_consent(browser, user, thing_app):
    thing = ThingFactory()
    response = browser.post(url(thing_app, thing), {"csrfmiddlewaretoken": csrf_token(browser)})
    assert response.status_code == 302
    assert response["Location"] == f"/thing:{thing.pk}"
    assert not AppAuthorization.objects.exists()
    page = browser.get(response["Location"]).content.decode()
    assert "“Part Painter” was not authorized." in page


def test_a_user_who_already_authorized_the_app_goes_straight_back(browser, thing_app, consent):
    thing = ThingFactory()
    response = browser.get(url(thing_app, thing))
    assert response.status_code == 302
    assert response["Location"] == f"/thing:{thing.pk}?app={thing_app.client_id}"


def test_the_consent_needs_a_login(thing_app):
    thing = ThingFactory()
    response = Client().get(url(thing_app, thing))
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_allowing_needs_the_csrf_token(browser, thing_app):
    response = browser.post(url(thing_app, ThingFactory()), {"allow": "Authorize"})
    assert response.status_code == 403
    assert not AppAuthorization.objects.exists()


@pytest.mark.parametrize(
    "query",
    [
        "",
        "client_id=nope&thing_id={thing}",
        "client_id={app}",
        "client_id={app}&thing_id=abc",
        "client_id={app}&thing_id=99999999999999999999",
        "client_id={app}&thing_id={draft}",
        "client_id={pending}&thing_id={thing}",
        "client_id={web}&thing_id={thing}",
    ],
)
def test_an_unknown_app_or_thing_is_404(browser, thing_app, query):
    thing = ThingFactory()
    draft = ThingFactory(is_published=False, published_at=None)
    pending = ApplicationFactory(
        app_type="thing", approval_state="pending", application_url="https://p.example/"
    )
    web = ApplicationFactory(app_type="web")
    path = "/thing-apps/authorize?" + query.format(
        app=thing_app.client_id, thing=thing.pk, draft=draft.pk, pending=pending.client_id, web=web.client_id
    )
    assert browser.get(path).status_code == 404
    response = browser.post(path, {"allow": "Authorize", "csrfmiddlewaretoken": csrf_token(browser)})
    assert response.status_code == 404
    assert not AppAuthorization.objects.exists()
