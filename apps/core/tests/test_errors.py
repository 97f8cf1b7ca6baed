"""Every API error is docs/decisions.md's JSON body with X-Error; 401s say WWW-Authenticate: Bearer."""
import logging
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.oauth.tests.factories import AccessTokenFactory

pytestmark = pytest.mark.urls("apps.core.tests.urls")

UNAUTHORIZED = {"error": "Unauthorized", "code": 401, "type": "UNAUTHORIZED"}


def assert_unauthorized(response):
    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED
    assert response["X-Error"] == "Unauthorized"
    assert response["WWW-Authenticate"] == "Bearer"


def test_no_token_is_401(anon_client, db):
    assert_unauthorized(anon_client.get("/echo"))


@pytest.mark.parametrize(
    "header",
    [
        "Bearer 0123456789abcdef0123456789abcdef",
        "Bearer",
        "Bearer ",
        "Token {token}",
        "Basic dXNlcjpwYXNz",
        "{token}",
    ],
)
def test_unknown_or_malformed_authorization_header_is_401(anon_client, user, application, header):
    token = AccessTokenFactory(user=user, application=application)
    response = anon_client.get("/echo", HTTP_AUTHORIZATION=header.format(token=token.token))
    assert_unauthorized(response)


def test_token_in_the_bearer_header_authenticates(anon_client, user, application):
    token = AccessTokenFactory(user=user, application=application)
    response = anon_client.get("/echo", HTTP_AUTHORIZATION=f"bearer {token.token}")
    assert response.json() == {"user": user.username}


def test_access_token_query_parameter_authenticates(anon_client, user, application):
    token = AccessTokenFactory(user=user, application=application)
    assert anon_client.get("/echo", {"access_token": token.token}).json() == {"user": user.username}


@pytest.mark.parametrize("value", ["", "nope"])
def test_bad_access_token_query_parameter_is_401(anon_client, db, value):
    assert_unauthorized(anon_client.get("/echo", {"access_token": value}))


def test_expired_token_is_401(anon_client, user, application):
    expired = timezone.now() - timedelta(seconds=1)
    token = AccessTokenFactory(user=user, application=application, expires=expired)
    assert_unauthorized(anon_client.get("/echo", HTTP_AUTHORIZATION=f"Bearer {token.token}"))


def test_suspended_users_token_is_401(api, user):
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert_unauthorized(api.get("/echo"))


def test_revoked_token_is_401(api):
    api.token.delete()  # DOT revokes by deleting the token
    assert_unauthorized(api.get("/echo"))


def test_app_read_only_token_is_refused_where_a_user_is_needed(app_client):
    response = app_client.get("/echo")
    assert response.status_code == 403
    assert response.json() == {"error": "Forbidden", "code": 403, "type": "FORBIDDEN"}


def test_domain_errors_render_the_short_reason(api):
    response = api.get("/forbidden")
    assert response.json() == {"error": "Forbidden", "code": 403, "type": "FORBIDDEN"}
    assert response["X-Error"] == "Forbidden"


def test_unsupported_method_is_a_json_405_with_allow(api):
    response = api.put("/echo", {}, format="json")
    assert response.status_code == 405
    assert response.json() == {
        "error": 'Method "PUT" not allowed.',
        "code": 405,
        "type": "METHOD_NOT_ALLOWED",
    }
    assert {m.strip() for m in response["Allow"].split(",")} >= {"GET", "POST"}


@pytest.mark.parametrize("debug", [False, True])
def test_crash_in_an_api_view_is_a_logged_json_500(api, caplog, debug):
    with override_settings(DEBUG=debug), caplog.at_level(logging.ERROR, logger="apps.core.pipeline.handlers"):
        response = api.get("/crash")
    assert response.status_code == 500
    assert response.json() == {"error": "Internal Server Error", "code": 500, "type": "INTERNAL_ERROR"}
    assert response["X-Error"] == "Internal Server Error"
    [record] = [r for r in caplog.records if r.name == "apps.core.pipeline.handlers"]
    assert record.exc_info[1].args == ("boom",)


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=10)
def test_oversized_body_is_a_413_not_a_500(api):
    response = api.post("/echo", {"name": "x" * 100}, format="json")
    assert response.status_code == 413
    assert response.json()["type"] == "PAYLOAD_TOO_LARGE"


def test_a_crash_in_a_site_page_is_the_sites_500_page_for_a_browser_and_json_for_the_rest(db):
    from django.test import Client

    browser = Client(raise_request_exception=False)
    page = browser.get("/plain-crash", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert "Something went wrong on our side" in html and "site/thingyard" in html
    assert "Traceback" not in html and "a bug in a page" not in html
    client = Client(raise_request_exception=False)
    assert client.get("/plain-crash").json() == {"error": "Internal Server Error", "code": 500,
                                                   "type": "INTERNAL_ERROR"}
    assert client.get("/plain-crash", HTTP_ACCEPT="application/json").json()["type"] == "INTERNAL_ERROR"
