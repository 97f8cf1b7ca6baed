"""The host on the Thing page: the app list, POST /thing-apps/launch and POST /thing-apps/verify."""

import json

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model

from apps.oauth import services as oauth_services
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory
from apps.thingapps.models import HostToken
from tests.support.api import csrf_token
from apps.things.tests.factories import ThingFactory
from apps.oauth.selectors import token_checksum

pytestmark = pytest.mark.django_db


def thing_app_factory(**kwargs):
    defaults = {"app_type": "thing", "application_url": "https://other-app.example/", "name": "Other"}
    return ApplicationFactory(**{**defaults, **kwargs})


def post_json(client, url, body):
    return client.post(
        url, json.dumps(body), content_type="application/json", HTTP_X_CSRFTOKEN=csrf_token(client)
    )


# --- the Thing page --------------------------------------------------------------------------------


def test_a_signed_in_user_sees_the_approved_thing_apps_with_the_host(browser, thing_app):
    thing = ThingFactory()
    html = browser.get(f"/thing:{thing.pk}").content.decode()
    assert 'id="thing-apps"' in html
    assert f'data-client-id="{thing_app.client_id}"' in html
    assert "Open Part Painter" in html
    assert "You will be asked to authorize it first." in html
    assert f'data-thing-id="{thing.pk}"' in html
    assert "/static/thingapps/host.js" in html
    assert "access_token" not in html  # the token is handed over by POST /thing-apps/launch only


def test_an_authorized_app_is_not_announced_as_needing_consent(browser, thing_app, consent):
    html = browser.get(f"/thing:{ThingFactory().pk}").content.decode()
    assert "Open Part Painter" in html
    assert "You will be asked to authorize it first." not in html


def test_only_approved_thing_apps_served_from_another_origin_are_listed(browser, thing_app):
    thing_app_factory(name="Pending one", approval_state="pending")
    thing_app_factory(name="Rejected one", approval_state="rejected")
    ApplicationFactory(name="A web app", app_type="web")
    thing_app_factory(name="No address", application_url="")
    thing_app_factory(name="Same origin", application_url="http://testserver/evil/")
    html = browser.get(f"/thing:{ThingFactory().pk}").content.decode()
    for name in ("Pending one", "Rejected one", "A web app", "No address", "Same origin"):
        assert name not in html, name
    assert "Part Painter" in html


def test_visitors_get_no_app_list(client, thing_app):
    html = client.get(f"/thing:{ThingFactory().pk}").content.decode()
    assert "thing-apps" not in html and "Part Painter" not in html


def test_no_section_without_apps(browser):
    assert 'id="thing-apps"' not in browser.get(f"/thing:{ThingFactory().pk}").content.decode()


@pytest.mark.parametrize("app_count", [1, 30])
def test_the_app_list_costs_one_query_however_many_apps(browser, user, app_count, django_assert_num_queries):
    for n in range(app_count):
        app = thing_app_factory(name=f"App {n:02}", application_url=f"https://app{n}.example/")
        if n % 2:
            oauth_services.authorization_grant(application=app, user=user)
    thing = ThingFactory(tags=["a"])
    # session + user; the Thing page's own (Thing, tags, derivatives, ancestors), its sections' (files,
    # images, the user's collections, makes, comments) and the apps with the consents (issue 15).
    with django_assert_num_queries(12):
        response = browser.get(f"/thing:{thing.pk}")
    assert response.content.decode().count('thing-app-open"') == app_count


# --- POST /thing-apps/launch ------------------------------------------------------------------------


def test_launch_answers_the_iframe_url_with_a_token_of_the_app_for_the_user(
    browser, user, thing_app, consent
):
    thing = ThingFactory()
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing.pk}
    )
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    body = response.json()
    assert set(body) == {
        "status",
        "client_id",
        "name",
        "origin",
        "thing_id",
        "access_token",
        "expires_in",
        "src",
        "sandbox",
    }
    assert body["status"] == "ok"
    assert body["origin"] == "https://app.example.com"
    assert body["thing_id"] == thing.pk
    assert body["src"].startswith(f"https://app.example.com/thing-app/?thing_id={thing.pk}#access_token=")
    assert body["sandbox"] == "allow-scripts allow-forms allow-same-origin allow-popups"
    token = get_access_token_model().objects.get(token_checksum=token_checksum(body["access_token"]))
    assert (token.user, token.application) == (user, thing_app)
    me = Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {body['access_token']}")
    assert me.json()["id"] == user.pk


def test_launching_again_hands_over_the_same_token(browser, thing_app, consent):
    thing = ThingFactory()
    first = post_json(browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing.pk})
    second = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing.pk}
    )
    assert first.json()["access_token"] == second.json()["access_token"]
    assert HostToken.objects.count() == 1


def test_launch_sends_a_user_who_has_not_authorized_the_app_to_the_consent_step(browser, thing_app):
    thing = ThingFactory()
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing.pk}
    )
    assert response.status_code == 200
    assert response.json() == {
        "status": "authorization_required",
        "authorize_url": f"/thing-apps/authorize?client_id={thing_app.client_id}&thing_id={thing.pk}",
    }
    assert not get_access_token_model().objects.exists()


def test_after_revoking_the_app_launch_asks_for_consent_again(browser, user, thing_app, consent):
    thing = ThingFactory()
    post_json(browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing.pk})
    revoke = browser.post(
        f"/account/apps/{thing_app.pk}/revoke", {"csrfmiddlewaretoken": csrf_token(browser)}
    )
    assert revoke.status_code == 302
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing.pk}
    )
    assert response.json()["status"] == "authorization_required"


def test_launch_needs_a_signed_in_user(thing_app):
    response = Client().post(
        "/thing-apps/launch",
        json.dumps({"client_id": thing_app.client_id, "thing_id": ThingFactory().pk}),
        content_type="application/json",
    )
    assert response.status_code == 401
    assert response.json() == {"error": "Unauthorized", "code": 401, "type": "UNAUTHORIZED"}


def test_launch_needs_the_csrf_token(user, thing_app, consent):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(
        "/thing-apps/launch",
        json.dumps({"client_id": thing_app.client_id, "thing_id": ThingFactory().pk}),
        content_type="application/json",
    )
    assert response.status_code == 403
    assert not get_access_token_model().objects.exists()


def test_launch_is_post_only(browser):
    assert browser.get("/thing-apps/launch").status_code == 405


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"client_id": "unknown", "thing_id": 1},
        {"client_id": None},
        {"client_id": ["x"], "thing_id": 1},
        {"client_id": "x" * 500},
    ],
)
def test_launch_of_an_unknown_app_is_404(browser, thing_app, body):
    response = post_json(browser, "/thing-apps/launch", body)
    assert response.status_code == 404
    assert response.json()["type"] == "NOT_FOUND"


@pytest.mark.parametrize("kwargs", [{"approval_state": "pending"}, {"app_type": "web"}])
def test_launch_of_an_app_that_is_not_an_approved_thing_app_is_404(browser, user, kwargs):
    app = thing_app_factory(**kwargs)
    oauth_services.authorization_grant(application=app, user=user)
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": app.client_id, "thing_id": ThingFactory().pk}
    )
    assert response.status_code == 404
    assert not get_access_token_model().objects.exists()


@pytest.mark.parametrize("thing_id", [None, "abc", 0, -1, 2**63, "1e3", 999999])
def test_launch_on_a_missing_thing_is_404(browser, thing_app, consent, thing_id):
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": thing_id}
    )
    assert response.status_code == 404


def test_launch_on_someone_elses_draft_is_404(browser, thing_app, consent):
    draft = ThingFactory(is_published=False, published_at=None)
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": draft.pk}
    )
    assert response.status_code == 404


def test_launch_on_the_users_own_draft_works(browser, user, thing_app, consent):
    draft = ThingFactory(creator=user, is_published=False, published_at=None)
    response = post_json(
        browser, "/thing-apps/launch", {"client_id": thing_app.client_id, "thing_id": draft.pk}
    )
    assert response.json()["status"] == "ok"


def test_launch_takes_a_form_body_too(browser, thing_app, consent):
    thing = ThingFactory()
    response = browser.post(
        "/thing-apps/launch",
        {
            "client_id": thing_app.client_id,
            "thing_id": str(thing.pk),
            "csrfmiddlewaretoken": csrf_token(browser),
        },
    )
    assert response.json()["status"] == "ok"


def test_launch_with_a_broken_json_body_is_404_not_500(browser, thing_app):
    response = browser.post(
        "/thing-apps/launch", "{oops", content_type="application/json", HTTP_X_CSRFTOKEN=csrf_token(browser)
    )
    assert response.status_code == 404


# --- POST /thing-apps/verify ------------------------------------------------------------------------


def test_verify_accepts_a_live_token_of_that_app_for_the_user(browser, user, thing_app):
    token = AccessTokenFactory(user=user, application=thing_app)
    response = post_json(
        browser, "/thing-apps/verify", {"client_id": thing_app.client_id, "access_token": token.token}
    )
    assert response.status_code == 200
    assert response.json() == {"valid": True}


def test_verify_refuses_another_apps_another_users_or_a_dead_token(browser, user, other_user, thing_app):
    from datetime import timedelta

    from django.utils import timezone

    other_app = thing_app_factory()
    tokens = [
        AccessTokenFactory(user=user, application=other_app).token,
        AccessTokenFactory(user=other_user, application=thing_app).token,
        AccessTokenFactory(
            user=user, application=thing_app, expires=timezone.now() - timedelta(seconds=1)
        ).token,
        "0" * 32,
        "",
        None,
        42,
        "x" * 1000,
    ]
    for token in tokens:
        response = post_json(
            browser, "/thing-apps/verify", {"client_id": thing_app.client_id, "access_token": token}
        )
        assert response.json() == {"valid": False}, token
    response = post_json(browser, "/thing-apps/verify", {"client_id": None, "access_token": tokens[0]})
    assert response.json() == {"valid": False}


def test_verify_needs_a_signed_in_user_and_csrf(user, thing_app):
    token = AccessTokenFactory(user=user, application=thing_app).token
    body = json.dumps({"client_id": thing_app.client_id, "access_token": token})
    assert Client().post("/thing-apps/verify", body, content_type="application/json").status_code == 401
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/thing-apps/verify", body, content_type="application/json").status_code == 403


def test_the_hosts_endpoints_never_answer_other_origins(browser, thing_app, consent):
    # The app's origin is registered for the REST API's CORS; the host's session endpoints are not API.
    response = browser.post(
        "/thing-apps/launch",
        json.dumps({"client_id": thing_app.client_id, "thing_id": ThingFactory().pk}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf_token(browser),
        HTTP_ORIGIN="https://app.example.com",
    )
    assert "Access-Control-Allow-Origin" not in response
    preflight = browser.options(
        "/thing-apps/verify", HTTP_ORIGIN="https://app.example.com", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    assert "Access-Control-Allow-Origin" not in preflight
    api = Client().get("/users/me", HTTP_ORIGIN="https://app.example.com")
    assert api["Access-Control-Allow-Origin"] == "https://app.example.com"
