"""PKCE, refresh tokens, RFC 7009 revocation, RFC 8414 metadata, tokeninfo."""
import base64
import hashlib
import re
import secrets
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from apps.oauth.tests.factories import APP_SECRET, AccessTokenFactory, ApplicationFactory
from apps.oauth.tests.flow import (
    REVOKE,
    TOKEN,
    TOKENINFO,
    authorize_url,
    exchange_form,
    get_code,
    parse_form,
    redirect_params,
    token_params,
)
from apps.oauth.selectors import token_checksum

AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()
HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


@pytest.fixture
def public_app(db):
    return ApplicationFactory(client_type="public", app_type="mobile")


@pytest.mark.django_db
def test_a_public_client_completes_the_flow_with_pkce_s256(public_app, browser):
    verifier, challenge = _pkce_pair()
    code = get_code(browser, public_app, code_challenge=challenge, code_challenge_method="S256")
    response = exchange_form(
        Client(), {"client_id": public_app.client_id, "code": code, "code_verifier": verifier}
    )
    assert response.status_code == 200, response.content
    assert HEX32.match(parse_form(response)["access_token"])


@pytest.mark.django_db
def test_a_public_client_with_a_wrong_verifier_gets_invalid_grant(public_app, browser):
    _verifier, challenge = _pkce_pair()
    code = get_code(browser, public_app, code_challenge=challenge, code_challenge_method="S256")
    params = {"client_id": public_app.client_id, "code": code, "code_verifier": "x" * 50}
    response = exchange_form(Client(), params)
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_grant"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_a_public_client_without_pkce_is_rejected_at_the_authorization_endpoint(public_app, browser):
    response = browser.get(authorize_url(public_app, state="s"))
    assert response.status_code == 302
    params = redirect_params(response)
    assert params["error"] == "invalid_request"
    assert params["state"] == "s"


@pytest.mark.django_db
def test_the_plain_pkce_method_is_refused(public_app, browser):
    from apps.oauth.tests.flow import consent

    response = consent(browser, public_app, code_challenge="a" * 50, code_challenge_method="plain")
    assert redirect_params(response)["error"] == "invalid_request"


@pytest.mark.django_db
def test_a_confidential_client_may_use_pkce_and_is_held_to_it(application, browser):
    verifier, challenge = _pkce_pair()
    code = get_code(browser, application, code_challenge=challenge, code_challenge_method="S256")
    assert exchange_form(Client(), token_params(application, code)).status_code == 400  # verifier missing
    response = exchange_form(Client(), token_params(application, code, code_verifier=verifier))
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_the_refresh_token_grant_rotates_the_pair(application, browser):
    code = get_code(browser, application)
    first = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json").json()
    response = exchange_form(
        Client(),
        {"grant_type": "refresh_token", "refresh_token": first["refresh_token"],
         "client_id": application.client_id, "client_secret": APP_SECRET},
    )
    assert response.status_code == 200, response.content
    second = parse_form(response)
    assert list(second)[:2] == ["access_token", "token_type"]
    assert HEX32.match(second["access_token"]) and second["access_token"] != first["access_token"]
    assert second["refresh_token"] != first["refresh_token"]
    assert not AccessToken.objects.filter(token_checksum=token_checksum(first["access_token"])).exists()
    assert Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {second['access_token']}").status_code == 200


@pytest.mark.django_db
def test_a_refresh_token_of_another_app_is_refused(application, browser):
    code = get_code(browser, application)
    first = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json").json()
    other = ApplicationFactory()
    response = exchange_form(
        Client(),
        {"grant_type": "refresh_token", "refresh_token": first["refresh_token"],
         "client_id": other.client_id, "client_secret": APP_SECRET},
    )
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_grant"


@pytest.mark.django_db
def test_revocation_deletes_the_access_token_and_the_api_answers_401(application, browser):
    code = get_code(browser, application)
    tokens = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json").json()
    response = Client().post(
        REVOKE,
        {"token": tokens["access_token"], "client_id": application.client_id, "client_secret": APP_SECRET},
    )
    assert response.status_code == 200
    assert not AccessToken.objects.exists()
    assert Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}").status_code == 401
    assert RefreshToken.objects.get().revoked is not None  # the bound refresh token goes too


@pytest.mark.django_db
def test_revocation_needs_the_clients_own_credentials(application, browser):
    code = get_code(browser, application)
    tokens = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json").json()
    response = Client().post(REVOKE, {"token": tokens["access_token"], "client_id": application.client_id,
                                      "client_secret": "wrong"})
    assert response.status_code == 401
    other = ApplicationFactory()
    params = {"token": tokens["access_token"], "client_id": other.client_id, "client_secret": APP_SECRET}
    Client().post(REVOKE, params)
    assert AccessToken.objects.filter(token_checksum=token_checksum(tokens["access_token"])).exists()


@pytest.mark.django_db
def test_the_metadata_document_describes_the_endpoints(settings):
    response = Client().get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    data = response.json()
    assert data["issuer"] == settings.AUTH_BASE_URL
    assert data["authorization_endpoint"] == settings.AUTH_BASE_URL + "/login/oauth/authorize"
    assert data["token_endpoint"] == settings.AUTH_BASE_URL + "/login/oauth/access_token"
    assert data["revocation_endpoint"] == settings.AUTH_BASE_URL + "/login/oauth/revoke"
    assert data["response_types_supported"] == ["code", "token"]
    assert set(data["grant_types_supported"]) == {
        "authorization_code", "implicit", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"
    }
    assert data["code_challenge_methods_supported"] == ["S256"]
    assert "client_secret_post" in data["token_endpoint_auth_methods_supported"]


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["query", "form", "json", "get", "bearer-header"])
def test_tokeninfo_reads_the_token_from_anywhere(user, application, how):
    token = AccessTokenFactory(user=user, application=application).token
    client = Client()
    if how == "query":
        response = client.post(TOKENINFO + "?" + urlencode({"access_token": token}))
    elif how == "form":
        response = client.post(TOKENINFO, {"access_token": token})
    elif how == "json":
        body = f'{{"access_token": "{token}"}}'
        response = client.post(TOKENINFO, body, content_type="application/x-www-form-urlencoded")
    elif how == "get":
        response = client.get(TOKENINFO, {"access_token": token})
    else:
        response = client.post(TOKENINFO, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    assert response.json() == {"audience": application.client_id, "user_id": str(user.pk)}
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.django_db
@pytest.mark.parametrize("token", ["", "0" * 32, "expired"])
def test_tokeninfo_answers_invalid_token_for_unknown_or_expired_tokens(user, application, token):
    if token == "expired":
        expires = timezone.now() - timedelta(seconds=1)
        token = AccessTokenFactory(user=user, application=application, expires=expires).token
    response = Client().post(TOKENINFO, {"access_token": token})
    assert response.status_code == 400
    assert response.json() == {"error": "invalid_token"}


@pytest.mark.django_db
def test_tokeninfo_costs_one_query(user, application, django_assert_num_queries):
    token = AccessTokenFactory(user=user, application=application).token
    with django_assert_num_queries(1):  # the token by checksum, joined with its application and user
        response = Client().post(TOKENINFO, {"access_token": token})
    assert response.status_code == 200


@pytest.mark.django_db
def test_tokeninfo_refuses_a_suspended_users_token(user, application):
    token = AccessTokenFactory(user=user, application=application).token
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert Client().post(TOKENINFO, {"access_token": token}).status_code == 400


@pytest.mark.django_db
def test_generated_tokens_are_32_lower_case_hex():
    from apps.oauth.tokens import generate_token

    tokens = {generate_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(HEX32.match(t) for t in tokens)


@pytest.mark.django_db
def test_the_token_endpoint_refuses_get(application):
    response = Client().get(TOKEN, token_params(application, "x"))
    assert response.status_code == 405
