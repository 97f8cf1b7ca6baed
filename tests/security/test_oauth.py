"""OAuth 2.0 as RFC 9700 (OAuth 2.0 Security Best Current Practice) asks of an authorization server.

Each test names the RFC section it proves. The flows run through the real views, DOT, oauthlib and the
database, as a browser and a client backend would drive them.
"""
import base64
import hashlib
import secrets
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.hashers import check_password, identify_hasher
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)
from rest_framework.test import APIClient

from apps.oauth.rules import IMPLICIT_ACCESS_TOKEN_SECONDS
from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.oauth.tests.flow import (
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
from tests.security.conftest import REGISTERED

AccessToken = get_access_token_model()
Grant = get_grant_model()
RefreshToken = get_refresh_token_model()


def _pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def _exchange(app, code, **extra):
    return exchange_form(Client(), token_params(app, code, **extra))


def _api_status(token: str) -> int:
    return APIClient().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token}").status_code


# --- RFC 9700 §2.1 / §4.1: exact redirect URI matching, no open redirector -------------------------

NOT_THE_REGISTERED_URI = [
    "https://app.example.com/callback/",
    "https://app.example.com/callbackx",
    "https://app.example.com/Callback",
    "https://app.example.com/callback/../evil",
    "https://app.example.com/callback%2F..%2Fevil",
    "https://app.example.com/callback;evil",
    "https://app.example.com/callback?next=https://evil.example",
    "https://app.example.com/callback?",
    "https://app.example.com/callback#fragment",
    "http://app.example.com/callback",
    "https://app.example.com:8443/callback",
    "https://app.example.com.evil.example/callback",
    "https://evil.example/callback",
    "https://app.example.com@evil.example/callback",
    "https://user@app.example.com/callback",
    "//evil.example/callback",
    "javascript:alert(1)//https://app.example.com/callback",
]


@pytest.mark.parametrize("redirect_uri", NOT_THE_REGISTERED_URI)
def test_authorize_never_redirects_to_anything_but_the_registered_uri(app, browser, redirect_uri):
    for extra in ({}, {"response_type": "token"}):
        response = browser.get(authorize_url(app, redirect_uri=redirect_uri, state="s1", **extra))
        assert response.status_code == 400, (redirect_uri, extra)
        assert "Location" not in response  # an error page, not a redirect (RFC 9700 §4.11.2)


@pytest.mark.parametrize("redirect_uri", NOT_THE_REGISTERED_URI[:6])
def test_a_user_who_already_consented_is_not_redirected_to_an_unregistered_uri_either(
    app, browser, redirect_uri
):
    get_code(browser, app)  # consent recorded: the next authorization skips the consent page
    response = browser.get(authorize_url(app, redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "Location" not in response


def test_the_registered_uri_matches_exactly(app, browser):
    response = consent(browser, app, redirect_uri=REGISTERED, state="s1")
    assert response["Location"].startswith(REGISTERED + "?")


def test_the_token_request_must_repeat_the_authorization_s_redirect_uri(app, browser):
    other = "https://app.example.com/other"
    app.redirect_uris = f"{REGISTERED} {other}"
    app.save()
    code = get_code(browser, app, redirect_uri=REGISTERED)
    response = _exchange(app, code, redirect_uri=other)
    assert response.status_code == 400
    assert parse_form(response)["error"] in ("invalid_grant", "invalid_request")  # oauthlib: the latter
    assert not AccessToken.objects.filter(application=app).exists()


def test_an_unknown_client_gets_an_error_page_not_a_redirect(browser):
    response = browser.get(
        "/login/oauth/authorize?client_id=nope&redirect_uri=https%3A%2F%2Fevil.example%2F&state=x"
    )
    assert response.status_code in (400, 404)
    assert "Location" not in response


@pytest.mark.parametrize(
    "target",
    ["https://evil.example/", "//evil.example/", "/\\evil.example/", "https:/\\evil.example/",
     "\\\\evil.example", "http://testserver.evil.example/"],
)
def test_login_and_signup_ignore_a_next_that_leaves_the_site(user_a, target):
    user_a.set_password("a-long-password-1")
    user_a.save()
    response = Client().post(
        f"/login/?next={target}", {"username": user_a.username, "password": "a-long-password-1"}
    )
    assert response.status_code == 302
    assert _stays_on_site(response["Location"]), response["Location"]
    signed_in = Client()
    signed_in.force_login(user_a)
    response = signed_in.get("/signup/", {"next": target})
    assert response.status_code == 302
    assert _stays_on_site(response["Location"]), response["Location"]


def test_logout_ignores_a_next_that_leaves_the_site(browser):
    response = browser.post("/logout/?next=https://evil.example/")
    assert response.status_code == 302
    assert _stays_on_site(response["Location"])


def _stays_on_site(location: str) -> bool:
    parts = urlsplit(location.replace("\\", "/"))
    return parts.netloc in ("", "testserver") and not location.startswith("//")


def test_authorize_sends_an_anonymous_user_to_the_site_s_own_login(app):
    response = Client().get(authorize_url(app, redirect_uri=REGISTERED))
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


# --- RFC 9700 §4.2.4 / RFC 6749 §4.1.2: an authorization code is used once -------------------------

def test_a_replayed_code_is_refused_and_revokes_the_tokens_it_issued(app, browser):
    code = get_code(browser, app)
    first = parse_form(_exchange(app, code))
    assert _api_status(first["access_token"]) == 200

    replay = _exchange(app, code)

    assert replay.status_code == 400
    assert parse_form(replay)["error"] == "invalid_grant"
    assert _api_status(first["access_token"]) == 401
    refreshed = exchange_form(Client(), {
        "grant_type": "refresh_token", "refresh_token": first["refresh_token"],
        "client_id": app.client_id, "client_secret": APP_SECRET,
    })
    assert refreshed.status_code == 400


def test_a_code_is_bound_to_the_client_it_was_issued_to(app, browser):
    code = get_code(browser, app)
    other = ApplicationFactory()
    params = {"client_id": other.client_id, "client_secret": APP_SECRET, "code": code}
    response = exchange_form(Client(), params)
    assert response.status_code == 400
    assert "access_token" not in parse_form(response)


# --- RFC 9700 §4.2 (short-lived codes): codes expire after ten minutes ------------------------------

def test_codes_expire_within_ten_minutes(app, browser):
    code = get_code(browser, app)
    assert Grant.objects.get(code=code).expires <= timezone.now() + timedelta(minutes=10)


def test_an_expired_code_gets_invalid_grant(app, browser):
    code = get_code(browser, app)
    Grant.objects.filter(code=code).update(expires=timezone.now() - timedelta(seconds=1))
    response = _exchange(app, code)
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_grant"
    assert not AccessToken.objects.filter(application=app).exists()


# --- RFC 9700 §2.1.1 / §4.8: PKCE, and no downgrade ------------------------------------------------

def test_a_code_issued_with_a_challenge_needs_its_verifier(app, browser):
    verifier, challenge = _pkce_pair()
    code = get_code(browser, app, code_challenge=challenge, code_challenge_method="S256")

    without = _exchange(app, code)
    wrong = _exchange(app, code, code_verifier=_pkce_pair()[0])

    assert without.status_code == wrong.status_code == 400
    assert not AccessToken.objects.filter(application=app).exists()
    assert _exchange(app, code, code_verifier=verifier).status_code == 200


def test_a_verifier_for_a_code_issued_without_a_challenge_is_refused(app, browser):
    # RFC 9700 §2.1.1: "a token request containing a code_verifier parameter is accepted only if a
    # code_challenge parameter was present in the authorization request" (the PKCE downgrade attack).
    code = get_code(browser, app)
    response = _exchange(app, code, code_verifier=_pkce_pair()[0])
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_grant"
    assert not AccessToken.objects.filter(application=app).exists()


def test_a_public_client_without_pkce_gets_no_code(browser):
    public = ApplicationFactory(client_type="public", app_type="mobile", redirect_uris=REGISTERED)
    response = browser.get(authorize_url(public, redirect_uri=REGISTERED, state="s1"))
    if response.status_code == 200:  # the consent page: its submit must not yield a code either
        response = consent(browser, public, redirect_uri=REGISTERED, state="s1")
    params = redirect_params(response) if response.status_code == 302 else {}
    assert "code" not in params
    assert response.status_code == 400 or params.get("error") == "invalid_request"


def test_the_plain_challenge_method_is_refused(app, browser):
    verifier = secrets.token_urlsafe(48)
    response = browser.get(authorize_url(app, redirect_uri=REGISTERED, code_challenge=verifier,
                                         code_challenge_method="plain"))
    if response.status_code == 200:
        response = consent(browser, app, redirect_uri=REGISTERED, code_challenge=verifier,
                           code_challenge_method="plain")
    params = redirect_params(response) if response.status_code == 302 else {}
    assert "code" not in params


# --- RFC 9700 §2.1.2: the implicit grant, kept for spec §5, issues short-lived tokens only ----------

def test_implicit_tokens_live_an_hour_and_come_without_a_refresh_token(app, browser):
    params = redirect_params(consent(browser, app, response_type="token", redirect_uri=REGISTERED))
    token = AccessToken.objects.get(token_checksum=token_checksum(params["access_token"]))

    assert int(params["expires_in"]) == IMPLICIT_ACCESS_TOKEN_SECONDS == 3600
    assert abs((token.expires - timezone.now()).total_seconds() - 3600) < 60
    assert "refresh_token" not in params
    assert not RefreshToken.objects.filter(access_token=token).exists()


def test_code_flow_tokens_keep_the_long_lifetime(app, browser):
    token = AccessToken.objects.get(token_checksum=token_checksum(parse_form(_exchange(app, get_code(browser, app)))["access_token"]))
    assert token.expires - timezone.now() > timedelta(days=29)


def test_an_implicit_token_is_refused_once_expired(app, browser):
    params = redirect_params(consent(browser, app, response_type="token", redirect_uri=REGISTERED))
    assert _api_status(params["access_token"]) == 200
    expired = timezone.now() - timedelta(seconds=1)
    AccessToken.objects.filter(token_checksum=token_checksum(params["access_token"])).update(expires=expired)
    assert _api_status(params["access_token"]) == 401


# --- RFC 6749 §10.12 / RFC 9700 §4.7: state comes back unchanged ------------------------------------

STATE = "xyz ABC/+=&%é-" + "9" * 40


@pytest.mark.parametrize("response_type", ["code", "token"])
def test_state_round_trips_unchanged(app, browser, response_type):
    params = redirect_params(consent(browser, app, response_type=response_type, state=STATE))
    assert params["state"] == STATE


def test_state_comes_back_on_a_denial_too(app, browser):
    params = redirect_params(consent(browser, app, allow=False, state=STATE))
    assert (params["error"], params["state"]) == ("access_denied", STATE)


def test_state_comes_back_when_the_consent_is_skipped(app, browser):
    get_code(browser, app)
    response = browser.get(authorize_url(app, state=STATE))
    assert parse_qs(urlsplit(response["Location"]).query)["state"] == [STATE]


# --- Client secrets are stored hashed ---------------------------------------------------------------

def test_client_secrets_are_stored_as_password_hashes(app):
    stored = get_application_model().objects.filter(pk=app.pk).values_list("client_secret", flat=True).get()
    assert stored != APP_SECRET and APP_SECRET not in stored
    identify_hasher(stored)  # a Django password hash, not the plain secret
    assert check_password(APP_SECRET, stored)


def test_a_secret_made_in_the_developer_portal_is_shown_once_and_stored_hashed(user_a):
    client = Client()
    client.force_login(user_a)
    response = client.post("/developers/apps/new", {
        "name": "Portal app", "description": "An app", "app_type": "web",
        "info_url": "https://portal.example.com/about", "application_url": "https://portal.example.com",
        "callback_url": "https://portal.example.com/callback", "client_type": "confidential",
    }, follow=True)
    assert response.status_code == 200, response.content[:500]
    application = get_application_model().objects.get(name="Portal app")
    page = response.content.decode()
    shown = next(
        word for word in _words(page) if len(word) >= 32 and check_password(word, application.client_secret)
    )
    assert shown not in application.client_secret
    assert shown not in client.get(f"/developers/apps/{application.pk}/").content.decode()  # once only


def _words(html: str) -> list[str]:
    import re

    return re.findall(r"[A-Za-z0-9_\-]{20,}", html)


def test_the_stored_hash_itself_is_not_a_usable_secret(app, browser):
    code = get_code(browser, app)
    params = {"client_id": app.client_id, "client_secret": app.client_secret, "code": code}
    response = exchange_form(Client(), params)
    assert response.status_code == 401
    assert parse_form(response)["error"] == "invalid_client"


def test_tokeninfo_names_the_audience_so_clients_can_check_it(app, browser):
    token = parse_form(_exchange(app, get_code(browser, app)))["access_token"]
    info = Client().post(TOKENINFO, {"access_token": token}).json()
    assert info["audience"] == app.client_id


def test_the_token_endpoint_is_never_cached(app, browser):
    response = _exchange(app, get_code(browser, app))
    assert response["Cache-Control"] == "no-store"


# --- RFC 9700 §4.14.2: refresh-token reuse revokes the whole family ----------------------------------

def _refresh(app, refresh_token, *, secret=True):
    params = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": app.client_id}
    if secret:
        params["client_secret"] = APP_SECRET
    return exchange_form(Client(), params)


def _tokens_of(app, browser, *, public: bool) -> dict:
    if not public:
        return parse_form(_exchange(app, get_code(browser, app)))
    verifier, challenge = _pkce_pair()
    code = get_code(browser, app, redirect_uri=REGISTERED, code_challenge=challenge, code_challenge_method="S256")
    params = {"client_id": app.client_id, "code": code, "code_verifier": verifier, "redirect_uri": REGISTERED}
    response = exchange_form(Client(), params)
    assert response.status_code == 200, response.content
    return parse_form(response)


@pytest.mark.parametrize("public", [True, False], ids=["public", "confidential"])
def test_a_replayed_refresh_token_revokes_every_token_descended_from_it(app, browser, public):
    if public:
        app = ApplicationFactory(client_type="public", app_type="mobile", redirect_uris=REGISTERED)
    first = _tokens_of(app, browser, public=public)
    second = parse_form(_refresh(app, first["refresh_token"], secret=not public))
    third = parse_form(_refresh(app, second["refresh_token"], secret=not public))
    assert _api_status(third["access_token"]) == 200

    replay = _refresh(app, first["refresh_token"], secret=not public)  # an attacker's stolen copy

    assert replay.status_code == 400 and parse_form(replay)["error"] == "invalid_grant"
    assert _api_status(third["access_token"]) == 401
    assert _refresh(app, third["refresh_token"], secret=not public).status_code == 400
    assert not AccessToken.objects.filter(application=app).exists()
    assert not RefreshToken.objects.filter(application=app, revoked__isnull=True).exists()


def test_a_refresh_token_that_was_not_replayed_keeps_working(app, browser):
    first = _tokens_of(app, browser, public=False)
    second = parse_form(_refresh(app, first["refresh_token"]))
    third = _refresh(app, second["refresh_token"])
    assert third.status_code == 200
    assert _api_status(parse_form(third)["access_token"]) == 200


# --- RFC 9207 / RFC 9700 §4.4: the issuer in every authorization response (issue 22) -----------------------


@pytest.mark.parametrize("response_type", ["code", "token"])
def test_every_authorization_response_names_the_issuer_the_metadata_publishes(app, browser, response_type):
    issuer = Client().get("/.well-known/oauth-authorization-server").json()
    assert issuer["authorization_response_iss_parameter_supported"] is True
    params = redirect_params(consent(browser, app, response_type=response_type, redirect_uri=REGISTERED))
    assert params["iss"] == issuer["issuer"]
    denied = redirect_params(consent(browser, app, allow=False, response_type=response_type,
                                     redirect_uri=REGISTERED, prompt="consent"))
    assert denied["error"] == "access_denied" and denied["iss"] == issuer["issuer"]
