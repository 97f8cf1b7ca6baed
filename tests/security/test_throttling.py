"""Guessing credentials is cheap for nobody (issue 14, findings 1 and 7; docs/security.md).

Finding 1: a wrong client_secret cost a worker 0.4-1.2 s of PBKDF2 and nothing throttled it. Client
secrets are now a keyed HMAC-SHA256 (apps.oauth.hashers), old PBKDF2 hashes still verify and are
upgraded on first use, and failed client authentications are throttled per client id and per address.

Finding 7: the site's log-in had no throttle (30 wrong passwords, then the right one logged in). Every
password check (apps.oauth.auth_backends) is throttled per account and per address; while locked, the
right password does not log in either, until the lock expires.

Everything runs through the real views, DOT, oauthlib, Django's auth and the real Redis cache.
"""
import base64
import time
from dataclasses import replace
from urllib.parse import urlencode

import pytest
from django.contrib.auth import hashers
from django.contrib.auth.hashers import make_password
from django.test import Client
from oauth2_provider.models import get_application_model

from apps.oauth import rules
from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.oauth.tests.flow import (
    REVOKE,
    TOKEN,
    authorize_url,
    exchange_form,
    parse_form,
    redirect_params,
    token_params,
)
from apps.oauth.tests.flow import get_code as _first_code

pytestmark = pytest.mark.django_db

PRODUCTION_HASHERS = [
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "apps.oauth.hashers.ClientSecretHasher",
]


@pytest.fixture
def pbkdf2_calls(monkeypatch):
    """Every PBKDF2 computation Django's hashers make (the 0.4-1.2 s of finding 1)."""
    calls = []
    # hashers imports pbkdf2 from django.utils.crypto; django-stubs does not re-export it there.
    real = hashers.pbkdf2  # type: ignore[attr-defined]

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(hashers, "pbkdf2", spy)
    return calls


@pytest.fixture
def production_hashers(settings):
    settings.PASSWORD_HASHERS = PRODUCTION_HASHERS


def get_code(browser, app) -> str:
    """A fresh code: the consent page the first time, the skipped consent's redirect after."""
    response = browser.get(authorize_url(app))
    if response.status_code == 302:
        return redirect_params(response)["code"]
    return _first_code(browser, app)


def _stored_secret(app) -> str:
    return get_application_model().objects.values_list("client_secret", flat=True).get(pk=app.pk)


def _token_request(app, secret, *, address="203.0.113.7", code="not-a-code"):
    params = {"client_id": app.client_id, "client_secret": secret, "code": code}
    return Client(REMOTE_ADDR=address).post(TOKEN, urlencode(params), content_type="application/x-www-form-urlencoded")


# --- Finding 1: the client secret's hash ------------------------------------------------------------

def test_a_new_client_secret_is_stored_as_a_keyed_hmac_not_a_password_hash(production_hashers):
    app = ApplicationFactory()
    stored = _stored_secret(app)
    assert stored.startswith(rules.CLIENT_SECRET_ALGORITHM + "$")
    assert APP_SECRET not in stored
    assert hashers.check_password(APP_SECRET, stored)
    assert not hashers.check_password(APP_SECRET + "x", stored)


def test_the_hmac_is_keyed_by_a_server_secret(settings):
    app = ApplicationFactory()
    stored = _stored_secret(app)
    settings.CLIENT_SECRET_HMAC_KEY = "another-server-key"
    assert not hashers.check_password(APP_SECRET, stored)  # a database copy alone cannot test guesses


def test_a_wrong_client_secret_costs_no_pbkdf2(production_hashers, pbkdf2_calls):
    app = ApplicationFactory()
    pbkdf2_calls.clear()
    started = time.perf_counter()
    for attempt in range(5):
        response = _token_request(app, f"wrong-{attempt}")
        assert response.status_code == 401 and parse_form(response)["error"] == "invalid_client"
    assert pbkdf2_calls == []
    assert time.perf_counter() - started < 5  # was 2-6 s of hashing alone


def test_a_secret_hashed_by_the_old_hasher_still_verifies_and_is_upgraded_on_use(
    production_hashers, pbkdf2_calls, user_a
):
    app = ApplicationFactory(redirect_uris="https://app.example.com/callback")
    legacy = make_password(APP_SECRET, hasher="pbkdf2_sha256")
    get_application_model().objects.filter(pk=app.pk).update(client_secret=legacy)
    browser = Client()
    browser.force_login(user_a)

    wrong = _token_request(app, "wrong")
    assert wrong.status_code == 401
    assert _stored_secret(app) == legacy  # a failure upgrades nothing

    response = exchange_form(Client(), token_params(app, get_code(browser, app)))
    assert response.status_code == 200, response.content
    assert _stored_secret(app).startswith(rules.CLIENT_SECRET_ALGORITHM + "$")

    pbkdf2_calls.clear()
    assert _token_request(app, "wrong-again").status_code == 401
    assert pbkdf2_calls == []
    assert exchange_form(Client(), token_params(app, get_code(browser, app))).status_code == 200


def test_the_admin_and_portal_regenerated_secret_uses_the_keyed_hash_too(production_hashers, owner_client, owner):
    app = ApplicationFactory(user=owner)
    get_application_model().objects.filter(pk=app.pk).update(client_secret=make_password("x", hasher="pbkdf2_sha256"))
    from apps.developers.services import application_rotate_secret

    application_rotate_secret(application=app)
    assert _stored_secret(app).startswith(rules.CLIENT_SECRET_ALGORITHM + "$")


# --- Finding 1: throttling failed client authentication -------------------------------------------

def _assert_throttled(response):
    assert response.status_code == 429, response.content
    assert int(response["Retry-After"]) > 0
    body = parse_form(response)
    assert body["error"] == "invalid_client"
    assert "Too many failed client authentications" in body["error_description"]


def test_a_client_id_is_locked_after_ten_wrong_secrets_even_for_the_right_one(user_a, pbkdf2_calls):
    app = ApplicationFactory()
    browser = Client()
    browser.force_login(user_a)
    for attempt in range(rules.CLIENT_ID_LIMIT.limit):
        # From many addresses: the per-client-id count catches a distributed guesser.
        assert _token_request(app, f"wrong-{attempt}", address=f"198.51.100.{attempt}").status_code == 401
    code = get_code(browser, app)

    _assert_throttled(_token_request(app, APP_SECRET, code=code, address="192.0.2.99"))
    assert not app.accesstoken_set.exists()


def test_basic_authentication_is_throttled_the_same_way():
    app = ApplicationFactory()
    for attempt in range(rules.CLIENT_ID_LIMIT.limit):
        _token_request(app, f"wrong-{attempt}")
    credentials = base64.b64encode(f"{app.client_id}:{APP_SECRET}".encode()).decode()
    response = Client().post(TOKEN, "code=x", content_type="application/x-www-form-urlencoded",
                             HTTP_AUTHORIZATION=f"Basic {credentials}")
    _assert_throttled(response)


def test_an_address_is_locked_after_thirty_failures_across_client_ids():
    apps = [ApplicationFactory() for _ in range(4)]
    for attempt in range(rules.CLIENT_ADDRESS_LIMIT.limit):
        assert _token_request(apps[attempt % 3], f"wrong-{attempt}", address="203.0.113.50").status_code == 401
    _assert_throttled(_token_request(apps[3], APP_SECRET, address="203.0.113.50"))
    # Another address, the same client id: its own count (invalid_grant: the secret was right).
    other = _token_request(apps[3], APP_SECRET, address="203.0.113.51")
    assert other.status_code == 400 and parse_form(other)["error"] == "invalid_grant"


def test_the_revocation_endpoint_shares_the_throttle():
    app = ApplicationFactory()
    for attempt in range(rules.CLIENT_ID_LIMIT.limit):
        _token_request(app, f"wrong-{attempt}")
    body = urlencode({"client_id": app.client_id, "client_secret": APP_SECRET, "token": "x"})
    response = Client(REMOTE_ADDR="203.0.113.7").post(REVOKE, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 429 and int(response["Retry-After"]) > 0


def test_the_lock_expires(monkeypatch, user_a):
    monkeypatch.setattr(rules, "CLIENT_ID_LIMIT", replace(rules.CLIENT_ID_LIMIT, limit=3, lock_seconds=1))
    app = ApplicationFactory()
    browser = Client()
    browser.force_login(user_a)
    for attempt in range(3):
        _token_request(app, f"wrong-{attempt}")
    _assert_throttled(_token_request(app, APP_SECRET))
    time.sleep(1.2)
    assert _token_request(app, APP_SECRET, code=get_code(browser, app)).status_code == 200


def test_a_success_clears_the_client_id_s_count(user_a):
    app = ApplicationFactory()
    browser = Client()
    browser.force_login(user_a)
    for round_ in range(2):
        for attempt in range(rules.CLIENT_ID_LIMIT.limit - 1):
            _token_request(app, f"wrong-{attempt}", address=f"198.51.100.{round_}")
        assert _token_request(app, APP_SECRET, code=get_code(browser, app), address="192.0.2.1").status_code == 200


# --- Finding 7: log-in throttling ---------------------------------------------------------------------

PASSWORD = "correct horse battery staple"


@pytest.fixture
def member(db):
    from apps.accounts.tests.factories import UserFactory

    user = UserFactory(username="member7")
    user.set_password(PASSWORD)
    user.save()
    return user


def _log_in(username, password, *, address="203.0.113.7", path="/login/"):
    client = Client(REMOTE_ADDR=address)
    response = client.post(path, {"username": username, "password": password})
    return client, response


def _logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_the_right_password_after_five_wrong_ones_does_not_log_in(member):
    for attempt in range(rules.LOGIN_ACCOUNT_LIMIT.limit):
        client, response = _log_in(member.username, f"wrong-{attempt}", address=f"198.51.100.{attempt}")
        assert not _logged_in(client)
    client, response = _log_in(member.username, PASSWORD, address="192.0.2.10")
    assert not _logged_in(client)
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "Too many failed log-in attempts" in response.content.decode()


def test_the_account_lock_ignores_the_case_of_the_username(member):
    for attempt in range(rules.LOGIN_ACCOUNT_LIMIT.limit):
        _log_in(member.username.upper(), f"wrong-{attempt}")
    client, response = _log_in(member.username, PASSWORD)
    assert not _logged_in(client) and response.status_code == 429


def test_no_password_is_hashed_while_locked(member, monkeypatch):
    for attempt in range(rules.LOGIN_ACCOUNT_LIMIT.limit):
        _log_in(member.username, f"wrong-{attempt}")
    checked = []
    real = hashers.check_password

    def spy(*args, **kwargs):
        checked.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(hashers, "check_password", spy)
    _log_in(member.username, PASSWORD)
    assert checked == []


def test_an_address_guessing_many_accounts_is_locked(member):
    for attempt in range(rules.LOGIN_ADDRESS_LIMIT.limit):
        _log_in(f"someone{attempt}", "guess", address="203.0.113.80")
    client, response = _log_in(member.username, PASSWORD, address="203.0.113.80")
    assert not _logged_in(client) and response.status_code == 429
    client, _ = _log_in(member.username, PASSWORD, address="203.0.113.81")
    assert _logged_in(client)


def test_the_admin_log_in_is_locked_too(member):
    member.is_staff = True
    member.save()
    for attempt in range(rules.LOGIN_ACCOUNT_LIMIT.limit):
        _log_in(member.username, f"wrong-{attempt}", path="/admin/login/")
    client, _ = _log_in(member.username, PASSWORD, path="/admin/login/")
    assert not _logged_in(client)


def test_the_log_in_works_again_once_the_lock_expires(member, monkeypatch):
    monkeypatch.setattr(rules, "LOGIN_ACCOUNT_LIMIT", replace(rules.LOGIN_ACCOUNT_LIMIT, limit=3, lock_seconds=1))
    for attempt in range(3):
        _log_in(member.username, f"wrong-{attempt}")
    assert not _logged_in(_log_in(member.username, PASSWORD)[0])
    time.sleep(1.2)
    assert _logged_in(_log_in(member.username, PASSWORD)[0])


def test_a_few_typos_between_successes_never_lock(member):
    for _ in range(3):
        for attempt in range(rules.LOGIN_ACCOUNT_LIMIT.limit - 1):
            _log_in(member.username, f"typo-{attempt}", address="192.0.2.20")
        assert _logged_in(_log_in(member.username, PASSWORD, address="192.0.2.20")[0])


# --- Sign-up (issue 22, finding 10) ---------------------------------------------------------------------


def _sign_up(name: str, *, address: str = "192.0.2.50", **extra):
    from apps.accounts.models import User

    response = Client(REMOTE_ADDR=address, **extra).post("/signup/", {
        "username": name, "email": f"{name}@example.com",
        "password1": "A-long-pass-42", "password2": "A-long-pass-42",
    })
    return response, User.objects.filter(username=name).exists()


def test_sign_ups_from_one_address_are_throttled_with_a_clear_page(db):
    from apps.accounts import rules as account_rules

    limit = account_rules.SIGNUP_ADDRESS_LIMIT.limit
    for number in range(limit):
        response, created = _sign_up(f"bulk{number}")
        assert response.status_code == 302 and created, number
    response, created = _sign_up("one_too_many")
    assert response.status_code == 429
    assert not created
    assert int(response["Retry-After"]) > 3000
    page = response.content.decode()
    assert "Too many accounts were created from your network recently" in page
    assert "try again in 60 minutes" in page
    # Another address is not affected.
    response, created = _sign_up("from_elsewhere", address="198.51.100.7")
    assert response.status_code == 302 and created


def test_while_locked_nothing_is_checked_or_hashed(db, monkeypatch):
    from apps.accounts import rules as account_rules

    monkeypatch.setattr(account_rules, "SIGNUP_ADDRESS_LIMIT",
                        replace(account_rules.SIGNUP_ADDRESS_LIMIT, limit=1))
    assert _sign_up("first_one")[1]
    from apps.accounts import services as account_services

    calls = []
    monkeypatch.setattr(account_services, "_user_create", lambda **kwargs: calls.append(kwargs))
    response, created = _sign_up("second_one")
    assert response.status_code == 429 and not created and calls == []


def test_behind_a_trusted_proxy_each_client_address_counts_alone(db, settings, monkeypatch):
    from apps.accounts import rules as account_rules

    settings.THROTTLE_TRUST_X_FORWARDED_FOR = True
    monkeypatch.setattr(account_rules, "SIGNUP_ADDRESS_LIMIT",
                        replace(account_rules.SIGNUP_ADDRESS_LIMIT, limit=2))
    proxy = "10.0.0.2"
    for number in range(2):
        assert _sign_up(f"left{number}", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.1")[1]
    assert _sign_up("left_more", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.1")[0].status_code == 429
    assert _sign_up("right0", address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.2")[1]


def test_sign_up_works_again_once_the_lock_expires(db, monkeypatch):
    from apps.accounts import rules as account_rules

    monkeypatch.setattr(account_rules, "SIGNUP_ADDRESS_LIMIT",
                        replace(account_rules.SIGNUP_ADDRESS_LIMIT, limit=1, lock_seconds=1))
    assert _sign_up("early")[1]
    assert _sign_up("blocked")[0].status_code == 429
    time.sleep(1.2)
    assert _sign_up("later")[1]
