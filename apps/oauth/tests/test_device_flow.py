"""Device sign-in (RFC 8628; docs/decisions.md: Device sign-in): the device authorization endpoint, the
token endpoint's polls, the /device page, and their limits."""
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_device_grant_model

from apps.accounts.tests.factories import UserFactory
from apps.oauth.device import rules
from apps.oauth.device.selectors import device_code_checksum
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.device import (
    DEVICE_AUTHORIZATION,
    DEVICE_GRANT,
    DEVICE_PAGE,
    decide,
    enter_code,
    poll,
    poll_error,
    request_codes,
    wait_interval,
)
from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.oauth.tests.flow import TOKEN, exchange_form, parse_form

DeviceGrant = get_device_grant_model()


@pytest.fixture
def desktop_app(db):
    """A public Desktop app (a slicer plugin): no secret, nothing registered for the device grant."""
    return ApplicationFactory(app_type="desktop", client_type="public", client_secret="", redirect_uris="")


@pytest.fixture
def device():
    return Client()


def test_a_desktop_app_signs_in_by_device_code_end_to_end(desktop_app, device, browser, user):
    codes = request_codes(device, desktop_app)
    assert set(codes) == {
        "device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"
    }
    assert re.fullmatch(r"[B-Z]{4}-[B-Z]{4}", codes["user_code"])
    assert codes["verification_uri"] == "http://testserver/device"
    assert codes["verification_uri_complete"] == f"http://testserver/device?user_code={codes['user_code']}"
    assert (codes["expires_in"], codes["interval"]) == (900, 5)

    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "authorization_pending"

    # The person opens verification_uri_complete: signed out, they are sent to log in and come back.
    signed_out = Client().get(codes["verification_uri_complete"].removeprefix("http://testserver"))
    assert signed_out.status_code == 302
    assert signed_out["Location"].startswith("/login/?next=/device%3Fuser_code%3D")
    prefilled = browser.get(codes["verification_uri_complete"].removeprefix("http://testserver"))
    assert prefilled.context["form"].initial["user_code"] == codes["user_code"]

    consent = enter_code(browser, codes["user_code"].lower().replace("-", " "))
    assert consent.status_code == 200
    assert desktop_app.name in consent.content.decode() and codes["user_code"] in consent.content.decode()
    assert [t.name for t in consent.templates][:2] == ["oauth/device_consent.html", "oauth/authorize.html"]
    done = decide(browser, codes["user_code"])
    assert done.status_code == 200 and b"Device connected" in done.content

    wait_interval()
    answer = poll(device, desktop_app, codes["device_code"])
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "application/x-www-form-urlencoded"
    assert answer.content.decode().startswith("access_token=")
    token = parse_form(answer)
    assert re.fullmatch(r"[0-9a-f]{32}", token["access_token"]) and token["token_type"] == "bearer"
    assert token["scope"] == "read write"

    me = Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token['access_token']}")
    assert me.status_code == 200 and me.json()["name"] == user.username
    assert AppAuthorization.objects.filter(application=desktop_app, user=user).exists()

    # One token per approval: the code is used up.
    wait_interval()
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "invalid_grant"
    assert get_access_token_model().objects.filter(application=desktop_app, user=user).count() == 1


def test_the_token_comes_as_json_when_asked_and_refreshes(desktop_app, device, browser):
    codes = request_codes(device, desktop_app)
    decide(browser, codes["user_code"])
    answer = poll(device, desktop_app, codes["device_code"], accept="application/json")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    body = answer.json()
    assert list(body)[:2] == ["access_token", "token_type"] and body["expires_in"] > 0
    refreshed = exchange_form(
        Client(),
        {"grant_type": "refresh_token", "refresh_token": body["refresh_token"], "client_id": desktop_app.client_id},
    )
    assert refreshed.status_code == 200, refreshed.content
    assert re.fullmatch(r"[0-9a-f]{32}", parse_form(refreshed)["access_token"])


def test_the_device_code_is_stored_as_a_checksum(desktop_app, device):
    codes = request_codes(device, desktop_app)
    grant = DeviceGrant.objects.get()
    assert grant.device_code == device_code_checksum(codes["device_code"]) != codes["device_code"]
    assert grant.user_code == codes["user_code"].replace("-", "")
    assert grant.application == desktop_app and grant.scope == "read write"


def test_a_mobile_app_may_ask_and_a_scope_is_kept(device, browser):
    app = ApplicationFactory(app_type="mobile", client_type="public", client_secret="")
    codes = request_codes(device, app, scope="read")
    consent = enter_code(browser, codes["user_code"])
    assert consent.context["scopes_descriptions"] == ["Read your data"]
    decide(browser, codes["user_code"])
    assert parse_form(poll(device, app, codes["device_code"]))["scope"] == "read"


@pytest.mark.parametrize("app_type", ["web", "thing"])
def test_a_web_or_thing_app_gets_unauthorized_client(app_type, device, db):
    app = ApplicationFactory(app_type=app_type)
    answer = device.post(DEVICE_AUTHORIZATION, {"client_id": app.client_id, "client_secret": APP_SECRET})
    assert answer.status_code == 400
    assert answer.json()["error"] == "unauthorized_client"
    assert not DeviceGrant.objects.exists()
    # Polling with the device grant is refused the same way.
    polled = exchange_form(
        device,
        {"grant_type": DEVICE_GRANT, "client_id": app.client_id, "client_secret": APP_SECRET, "device_code": "x"},
    )
    assert polled.status_code == 400 and parse_form(polled)["error"] == "unauthorized_client"


def test_a_confidential_desktop_app_authenticates_at_both_endpoints(device, browser):
    app = ApplicationFactory(app_type="desktop", client_type="confidential")
    without = device.post(DEVICE_AUTHORIZATION, {"client_id": app.client_id})
    assert without.status_code == 401 and without.json()["error"] == "invalid_client"
    codes = request_codes(device, app, client_secret=APP_SECRET)
    decide(browser, codes["user_code"])
    assert poll(device, app, codes["device_code"]).status_code == 401
    wait_interval()
    assert poll(device, app, codes["device_code"], client_secret=APP_SECRET).status_code == 200


def test_device_authorization_errors_are_oauth_errors_never_500(desktop_app, device):
    unknown = device.post(DEVICE_AUTHORIZATION, {"client_id": "no-such-app"})
    assert unknown.status_code == 401 and unknown.json()["error"] == "invalid_client"
    missing = device.post(DEVICE_AUTHORIZATION, {})
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"
    bad_scope = device.post(DEVICE_AUTHORIZATION, {"client_id": desktop_app.client_id, "scope": "admin"})
    assert bad_scope.status_code == 400 and bad_scope.json()["error"] == "invalid_scope"
    nul = device.post(DEVICE_AUTHORIZATION, {"client_id": "a\x00b"})
    assert nul.status_code == 401 and nul.json()["error"] == "invalid_client"
    assert device.get(DEVICE_AUTHORIZATION).status_code == 405
    # docs/decisions.md (OAuth, compat): a JSON body is read as well as a form.
    as_json = device.post(DEVICE_AUTHORIZATION, {"client_id": desktop_app.client_id}, content_type="application/json")
    assert as_json.status_code == 200 and "no-store" in as_json["Cache-Control"]
    assert not DeviceGrant.objects.exclude(application=desktop_app).exists()


def test_a_denied_sign_in_answers_access_denied(desktop_app, device, browser):
    codes = request_codes(device, desktop_app)
    done = decide(browser, codes["user_code"], allow=False)
    assert b"Device refused" in done.content
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "access_denied"
    assert not get_access_token_model().objects.filter(application=desktop_app).exists()
    # The code cannot be approved afterwards.
    again = enter_code(browser, codes["user_code"])
    assert again.status_code == 400 and b"already been used" in again.content


def test_an_expired_sign_in_answers_expired_token_and_the_page_says_so(desktop_app, device, browser):
    codes = request_codes(device, desktop_app)
    DeviceGrant.objects.update(expires=timezone.now() - timedelta(seconds=1))
    page = enter_code(browser, codes["user_code"])
    assert page.status_code == 400 and b"has expired" in page.content
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "expired_token"
    assert DeviceGrant.objects.get().status == rules.EXPIRED


def test_an_approval_after_expiry_gives_no_token(desktop_app, device, browser):
    codes = request_codes(device, desktop_app)
    decide(browser, codes["user_code"])
    DeviceGrant.objects.update(expires=timezone.now() - timedelta(seconds=1))
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "expired_token"


def test_polling_faster_than_the_interval_answers_slow_down(desktop_app, device):
    codes = request_codes(device, desktop_app)
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "authorization_pending"
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "slow_down"
    assert DeviceGrant.objects.get().interval == 10  # RFC 8628 §3.5: 5 seconds more from now on
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "slow_down"
    assert DeviceGrant.objects.get().interval == 15
    wait_interval()
    assert poll_error(poll(device, desktop_app, codes["device_code"])) == "authorization_pending"


def test_another_apps_device_code_is_an_invalid_grant(desktop_app, device):
    codes = request_codes(device, desktop_app)
    other = ApplicationFactory(app_type="desktop", client_type="public", client_secret="")
    assert poll_error(poll(device, other, codes["device_code"])) == "invalid_grant"


@pytest.mark.parametrize(
    "params, error",
    [
        # issue 22 finding 7: the device grant without a client, or without its device code: never a 500.
        ({"grant_type": DEVICE_GRANT}, "invalid_client"),
        ({"grant_type": DEVICE_GRANT, "device_code": "x"}, "invalid_client"),
        ({"grant_type": DEVICE_GRANT, "client_id": "{desktop}"}, "invalid_request"),
        ({"grant_type": DEVICE_GRANT, "client_id": "{desktop}", "device_code": ""}, "invalid_request"),
        ({"grant_type": DEVICE_GRANT, "client_id": "{desktop}", "device_code": "unknown"}, "invalid_grant"),
        # Grant types docs/decisions.md does not name: unsupported, with or without a client.
        ({"grant_type": "password", "username": "u", "password": "p", "client_id": "{web}"}, "unsupported_grant_type"),
        ({"grant_type": "password"}, "unsupported_grant_type"),
        ({"grant_type": "client_credentials", "client_id": "{web}"}, "unsupported_grant_type"),
        ({"grant_type": "client_credentials"}, "unsupported_grant_type"),
        ({"grant_type": "implicit", "client_id": "{web}"}, "unsupported_grant_type"),
        ({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer"}, "unsupported_grant_type"),
        ({"grant_type": "urn:ietf:params:oauth:grant-type:device_code "}, "unsupported_grant_type"),
        ({"grant_type": "foo", "client_id": "{web}"}, "unsupported_grant_type"),
        ({"grant_type": ""}, "unsupported_grant_type"),
        # refresh_token is one of the named grants: a missing token is the client's request error.
        ({"grant_type": "refresh_token", "client_id": "{web}"}, "invalid_request"),
    ],
)
def test_every_odd_grant_type_is_a_400_never_a_500(params, error, desktop_app, application, device):
    ids = {"{desktop}": desktop_app.client_id, "{web}": application.client_id}
    body = {key: ids.get(value, value) for key, value in params.items()}
    if body.get("client_id") == application.client_id:
        body["client_secret"] = APP_SECRET
    device.raise_request_exception = False
    answer = exchange_form(device, body)
    assert answer.status_code in (400, 401), (answer.status_code, answer.content)
    assert parse_form(answer)["error"] == error
    # As JSON too (docs/decisions.md: OAuth).
    answer = exchange_form(device, body, HTTP_ACCEPT="application/json")
    assert answer.json()["error"] == error


def test_the_device_page_asks_a_signed_out_person_to_log_in_first():
    response = Client().get(DEVICE_PAGE + "?user_code=WDJB-MJHT")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/device%3Fuser_code%3DWDJB-MJHT"
    assert Client().post(DEVICE_PAGE, {"user_code": "WDJB-MJHT"}).status_code == 302


def test_a_wrong_code_is_refused_clearly(browser):
    for typed in ("WDJB-MJHT", "nonsense", "A" * 32):
        response = enter_code(browser, typed)
        assert response.status_code == 400
        assert b"That code is not valid" in response.content
    empty = enter_code(browser, "")
    assert empty.status_code == 400


def test_entering_codes_is_paused_after_ten_wrong_ones_even_for_the_right_code(desktop_app, device, browser, user):
    codes = request_codes(device, desktop_app)
    for _ in range(rules.USER_CODE_ACCOUNT_LIMIT.limit - 1):
        assert enter_code(browser, "BBBB-BBBB").status_code == 400
    locked = enter_code(browser, "BBBB-BBBB")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert b"entering codes is paused" in locked.content
    right = enter_code(browser, codes["user_code"])
    assert right.status_code == 429
    # Approving straight away (the consent form's POST) is refused too: no way around the pause.
    approve = browser.post(DEVICE_PAGE, {"user_code": codes["user_code"], "confirm": "1", "allow": "Authorize"})
    assert approve.status_code == 429
    assert DeviceGrant.objects.get().status == rules.PENDING
    # Another person on another address is not paused.
    other = Client(REMOTE_ADDR="10.0.0.9")
    other.force_login(UserFactory())
    assert enter_code(other, codes["user_code"]).status_code == 200


def test_a_forged_consent_post_with_a_wrong_code_counts_as_a_wrong_code(browser):
    response = browser.post(DEVICE_PAGE, {"user_code": "BBBB-BBBB", "confirm": "1", "allow": "Authorize"})
    assert response.status_code == 400 and b"That code is not valid" in response.content


def test_a_code_is_decided_once(desktop_app, device, browser):
    codes = request_codes(device, desktop_app)
    decide(browser, codes["user_code"])
    stranger = Client()
    stranger.force_login(UserFactory())
    again = enter_code(stranger, codes["user_code"])
    assert again.status_code == 400 and b"already been used" in again.content
    assert DeviceGrant.objects.get().status == rules.AUTHORIZED


def test_an_unapproved_app_at_its_user_limit_cannot_be_approved(device, browser, settings):
    settings.UNAPPROVED_APP_USER_LIMIT = 1
    app = ApplicationFactory(app_type="desktop", client_type="public", client_secret="", approval_state="pending")
    AppAuthorization.objects.create(application=app, user=UserFactory())
    codes = request_codes(device, app)
    page = enter_code(browser, codes["user_code"])
    assert page.status_code == 403 and b"awaiting review" in page.content
    forced = browser.post(DEVICE_PAGE, {"user_code": codes["user_code"], "confirm": "1", "allow": "Authorize"})
    assert forced.status_code == 403
    assert DeviceGrant.objects.get().status == rules.PENDING


def test_the_server_metadata_names_the_device_endpoint(client):
    metadata = client.get("/.well-known/oauth-authorization-server").json()
    assert metadata["device_authorization_endpoint"] == "http://testserver/login/oauth/device_authorization"
    assert DEVICE_GRANT in metadata["grant_types_supported"]


def test_old_device_grants_are_purged_by_the_periodic_task(desktop_app, device, settings):
    from apps.oauth.device.tasks import device_grants_purge

    request_codes(device, desktop_app)
    request_codes(device, desktop_app)
    DeviceGrant.objects.filter(pk=DeviceGrant.objects.first().pk).update(expires=timezone.now() - timedelta(days=2))
    assert device_grants_purge.delay().get() == 1
    assert DeviceGrant.objects.count() == 1
    assert settings.CELERY_BEAT_SCHEDULE["oauth-device-grants-purge"]["task"] == device_grants_purge.name


def test_the_token_endpoint_path_is_unchanged_for_the_code_flow(application):
    # The grant_type default (authorization_code) still routes to the code flow.
    answer = exchange_form(Client(), {"client_id": application.client_id, "client_secret": APP_SECRET, "code": "x"})
    assert answer.status_code == 400 and parse_form(answer)["error"] == "invalid_grant"
    assert TOKEN == "/login/oauth/access_token"


def test_the_device_pages_queries(desktop_app, device, browser, django_assert_num_queries):
    codes = request_codes(device, desktop_app)
    with django_assert_num_queries(2):  # the session, the user
        browser.get(DEVICE_PAGE)
    # The session, the user, the grant with its app and the app's owner (an approved app: no user count).
    with django_assert_num_queries(3):
        enter_code(browser, codes["user_code"])
    data = {"user_code": codes["user_code"], "confirm": "1", "allow": "Authorize"}
    # The session, the user, the grant; the consent (savepoints around it and authorization_grant's, the
    # app's row locked, the user's consent, the app's user count, the new consent); the grant decided.
    with django_assert_num_queries(12):
        done = browser.post(DEVICE_PAGE, data)
    assert b"Device connected" in done.content


def test_a_device_code_never_reaches_the_logs():
    from apps.core.security.redaction import redact

    assert "s3cr3t" not in redact("POST /login/oauth/access_token?grant_type=x&device_code=s3cr3t HTTP/1.1")
    assert "s3cr3t" not in redact("Saving token {'device_code': 's3cr3t'}")


def test_an_address_asking_for_too_many_device_codes_is_paused(desktop_app, device, settings):
    from apps.oauth.device.rules import DEVICE_CODE_ADDRESS_LIMIT

    for _ in range(DEVICE_CODE_ADDRESS_LIMIT.limit):
        request_codes(device, desktop_app)
    refused = device.post(DEVICE_AUTHORIZATION, {"client_id": desktop_app.client_id})
    assert refused.status_code == 429, refused.content[:500]
    assert int(refused["Retry-After"]) > 0
    assert refused.json()["error"] == "slow_down"
    assert DeviceGrant.objects.count() == DEVICE_CODE_ADDRESS_LIMIT.limit
    # Another network is not.
    assert Client(REMOTE_ADDR="10.0.0.7").post(DEVICE_AUTHORIZATION, {"client_id": desktop_app.client_id}).status_code == 200
