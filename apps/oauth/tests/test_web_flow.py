"""The whole OAuth web flow (spec §5) from a plain HTTP client, token exchange in every wire variant."""
import json
import re
from urllib.parse import urlencode, urlsplit

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model

from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.oauth.tests.flow import (
    AUTHORIZE,
    TOKEN,
    TOKENINFO,
    authorize_url,
    consent,
    exchange_form,
    get_code,
    parse_form,
    redirect_params,
    token_params,
)
from apps.oauth.selectors import token_checksum

HEX32 = re.compile(r"^[0-9a-f]{32}$")


@pytest.mark.django_db
def test_the_web_flow_goes_from_login_to_consent_to_code_to_token_to_the_api(application, user):
    client = Client()
    url = authorize_url(application, redirect_uri="https://app.example.com/callback", state="xyz")

    response = client.get(url)
    assert response.status_code == 302
    login_url = response["Location"]
    assert login_url.startswith("/login/?next=")

    page = client.get(login_url)
    assert page.status_code == 200
    assert b'name="password"' in page.content
    response = client.post(login_url, {"username": user.username, "password": "pass-word-123", "next": url})
    assert response.status_code == 302
    assert response["Location"] == url

    page = client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert application.name in body and "Allow" in body and "Deny" in body
    assert application.info_url in body and application.user.username in body
    assert "Unverified app" not in body  # the factory app is approved

    data = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    response = client.post(url, {**data, "allow": "Authorize"})
    params = redirect_params(response)
    assert response["Location"].startswith("https://app.example.com/callback?")
    assert params["state"] == "xyz"

    response = exchange_form(
        Client(), token_params(application, params["code"], redirect_uri="https://app.example.com/callback")
    )
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-www-form-urlencoded"
    assert response.content.decode().startswith("access_token=")
    reply = parse_form(response)
    assert list(reply)[:2] == ["access_token", "token_type"]
    assert reply["token_type"] == "bearer"
    assert HEX32.match(reply["access_token"])
    token = reply["access_token"]

    info = Client().post(TOKENINFO, {"access_token": token})
    assert info.status_code == 200
    assert info.json() == {"audience": application.client_id, "user_id": str(user.pk)}

    me = Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert me.status_code == 200
    assert me.json()["name"] == user.username
    me = Client().get("/users/me?" + urlencode({"access_token": token}))
    assert me.status_code == 200


@pytest.mark.django_db
def test_redirect_uri_defaults_to_the_registered_callback(application, browser):
    response = browser.get(authorize_url(application))
    assert response.status_code == 200
    code = get_code(browser, application)
    response = exchange_form(Client(), token_params(application, code))
    assert response.status_code == 200, response.content
    assert "access_token" in parse_form(response)


@pytest.mark.django_db
def test_token_exchange_accepts_parameters_in_the_query_string(application, browser):
    code = get_code(browser, application)
    response = Client().post(TOKEN + "?" + urlencode(token_params(application, code)))
    assert response.status_code == 200, response.content
    assert HEX32.match(parse_form(response)["access_token"])


@pytest.mark.django_db
def test_token_exchange_accepts_a_multipart_body(application, browser):
    code = get_code(browser, application)
    response = Client().post(TOKEN, token_params(application, code))  # Client's default is multipart
    assert response.status_code == 200, response.content
    assert HEX32.match(parse_form(response)["access_token"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/x-www-form-urlencoded", "text/plain", ""],
    ids=["json", "json-labelled-form", "json-labelled-text", "no-content-type"],
)
def test_token_exchange_accepts_a_json_body_whatever_the_content_type(application, browser, content_type):
    code = get_code(browser, application)
    body = json.dumps(token_params(application, code))
    if content_type:
        response = Client().post(TOKEN, body, content_type=content_type)
    else:
        response = Client().generic("POST", TOKEN, body.encode())
    assert response.status_code == 200, response.content
    assert HEX32.match(parse_form(response)["access_token"])


@pytest.mark.django_db
def test_token_exchange_merges_the_query_string_with_the_body(application, browser):
    code = get_code(browser, application)
    query = urlencode({"client_id": application.client_id, "client_secret": APP_SECRET})
    response = Client().post(f"{TOKEN}?{query}", json.dumps({"code": code}), content_type="application/json")
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_token_exchange_replies_json_when_accept_asks_for_it(application, browser):
    code = get_code(browser, application)
    response = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    data = response.json()
    assert list(data)[:2] == ["access_token", "token_type"]
    assert data["token_type"] == "bearer"
    assert HEX32.match(data["access_token"])
    assert HEX32.match(data["refresh_token"])
    assert isinstance(data["expires_in"], int)
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_the_token_endpoint_ignores_csrf_and_sends_no_cors_headers(application, browser):
    code = get_code(browser, application)
    client = Client(enforce_csrf_checks=True)
    response = exchange_form(client, token_params(application, code), HTTP_ORIGIN="https://app.example.com")
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.django_db
def test_the_implicit_flow_puts_a_bearer_token_in_the_fragment(application, browser):
    response = browser.get(authorize_url(application, response_type="token", state="s1"))
    assert response.status_code == 200
    response = consent(browser, application, response_type="token", state="s1")
    location = response["Location"]
    fragment = urlsplit(location).fragment
    assert fragment.startswith("access_token=")
    assert "&token_type=bearer&" in fragment
    params = redirect_params(response)
    assert HEX32.match(params["access_token"])
    assert params["state"] == "s1"
    assert "refresh_token" not in params
    token = get_access_token_model().objects.get(token_checksum=token_checksum(params["access_token"]))
    assert token.application == application


@pytest.mark.django_db
@pytest.mark.parametrize("app_type", ["mobile", "desktop"])
def test_the_implicit_flow_is_refused_for_mobile_and_desktop_apps(browser, app_type):
    app = ApplicationFactory(app_type=app_type)
    response = browser.get(authorize_url(app, response_type="token"))
    assert response.status_code == 302
    assert "error=unauthorized_client" in response["Location"]
    assert not get_access_token_model().objects.exists()


@pytest.mark.django_db
def test_deny_redirects_with_access_denied_and_state(application, browser):
    response = consent(browser, application, allow=False, state="st")
    params = redirect_params(response)
    # RFC 9207: the issuer comes back on errors too (docs/security.md, issue 22).
    assert params == {"error": "access_denied", "state": "st", "iss": "http://testserver"}
    assert response["Location"].startswith("https://app.example.com/callback?")


@pytest.mark.django_db
def test_an_unknown_client_id_gets_an_error_page_not_a_redirect(browser):
    query = urlencode({"client_id": "nope", "redirect_uri": "https://evil.example/"})
    response = browser.get(f"{AUTHORIZE}?{query}")
    assert response.status_code == 400
    assert "text/html" in response["Content-Type"]
    assert b"Invalid authorization request" in response.content


@pytest.mark.django_db
def test_an_unregistered_redirect_uri_gets_an_error_page_not_a_redirect(application, browser):
    response = browser.get(authorize_url(application, redirect_uri="https://evil.example/callback"))
    assert response.status_code == 400
    assert "evil.example" not in response.get("Location", "")


@pytest.mark.django_db
def test_a_tampered_consent_form_never_redirects_to_an_unregistered_uri(application, browser):
    url = authorize_url(application)
    page = browser.get(url)
    data = {k: v for k, v in page.context["form"].initial.items() if v is not None}
    for allow in ({}, {"allow": "Authorize"}):
        response = browser.post(url, {**data, "redirect_uri": "https://evil.example/cb", **allow})
        assert response.status_code == 400
        assert not response.has_header("Location")


@pytest.mark.django_db
def test_a_user_who_already_authorized_the_app_skips_the_consent_page(application, browser):
    get_code(browser, application)
    response = browser.get(authorize_url(application, state="again"))
    params = redirect_params(response)
    assert params["state"] == "again" and params["code"]
    # prompt=consent asks again
    assert browser.get(authorize_url(application, prompt="consent")).status_code == 200


@pytest.mark.django_db
def test_the_consent_page_warns_about_an_unverified_app(pending_app, browser):
    page = browser.get(authorize_url(pending_app))
    assert page.status_code == 200
    assert b"Unverified app" in page.content


@pytest.mark.django_db
def test_logout_is_a_post_and_ends_the_session(application, browser):
    assert browser.post("/logout/").status_code == 302
    response = browser.get(authorize_url(application))
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.django_db
def test_deny_in_the_implicit_flow_puts_the_error_in_the_fragment(application, browser):
    response = consent(browser, application, allow=False, response_type="token", state="st")
    # RFC 9207: the issuer comes back on errors too (docs/security.md, issue 22).
    assert urlsplit(response["Location"]).fragment == "error=access_denied&state=st&iss=http%3A%2F%2Ftestserver"
    assert not get_access_token_model().objects.exists()


@pytest.mark.django_db
def test_a_wrong_password_stays_on_the_login_page(user):
    response = Client().post("/login/", {"username": user.username, "password": "nope"})
    assert response.status_code == 200
    assert b"errorlist" in response.content
