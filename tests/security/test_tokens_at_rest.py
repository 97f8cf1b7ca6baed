"""Access and refresh tokens at rest (issue 22, finding 6; RFC 9700 §4): the database keeps only their
SHA-256 checksum, whoever issued them (the OAuth flows, the Thing page's host, the portal, the project's
own helpers), existing rows are migrated, every lookup goes by checksum, and the cached token row in Redis
holds only what authentication needs."""
import hashlib
import importlib
import re

from django.apps import apps as django_apps
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_refresh_token_model
from rest_framework.test import APIClient

from tests.support.api import token_client
from apps.oauth.selectors import token_cache, token_cache_key
from apps.oauth.tests.factories import ApplicationFactory
from apps.oauth.tests.flow import REVOKE, TOKENINFO, exchange_form, get_code, parse_form, token_params
from apps.oauth.tests.factories import APP_SECRET

AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()
WIRE = re.compile(r"[0-9a-f]{32}")


def _sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _every_token_column() -> list[str]:
    return list(AccessToken.objects.values_list("token", flat=True)) + list(
        RefreshToken.objects.values_list("token", flat=True)
    )


def test_the_code_flow_stores_only_checksums_and_the_tokens_keep_working(app, browser, user_a):
    tokens = parse_form(exchange_form(Client(), token_params(app, get_code(browser, app))))
    access, refresh = tokens["access_token"], tokens["refresh_token"]
    assert WIRE.fullmatch(access) and WIRE.fullmatch(refresh)  # docs/decisions.md: the wire format stays
    assert _every_token_column() == ["", ""]
    assert AccessToken.objects.get(token_checksum=_sha(access)).user == user_a
    assert RefreshToken.objects.get(token_checksum=_sha(refresh)).user == user_a
    # Every lookup goes by checksum: the API, tokeninfo, a refresh, a revocation.
    assert APIClient().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {access}").status_code == 200
    assert Client().get(TOKENINFO, {"access_token": access}).json()["user_id"] == str(user_a.pk)
    refreshed = parse_form(exchange_form(Client(), {
        "grant_type": "refresh_token", "refresh_token": refresh, "client_id": app.client_id,
        "client_secret": APP_SECRET,
    }))
    new_access = refreshed["access_token"]
    assert WIRE.fullmatch(new_access)
    assert set(_every_token_column()) == {""}
    assert APIClient().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {new_access}").status_code == 200
    response = Client().post(REVOKE, {"token": new_access, "client_id": app.client_id, "client_secret": APP_SECRET})
    assert response.status_code == 200
    assert APIClient().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {new_access}").status_code == 401


def test_tokens_the_project_saves_itself_are_stored_as_checksums_too(user_a, app_x):
    client = token_client(user_a, app_x)  # AccessToken.objects.create(token=…), as tests and services do
    plain = client.token.token
    assert WIRE.fullmatch(plain)  # the creator still has the value to hand out
    row = AccessToken.objects.get(pk=client.token.pk)
    assert row.token == "" and row.token_checksum == _sha(plain)
    assert client.get("/users/me").status_code == 200


def test_the_thing_page_s_host_token_is_stored_as_a_checksum_and_reused_sealed(user_a):
    from apps.oauth import services as oauth_services
    from apps.thingapps import services
    from apps.thingapps.models import HostToken

    thing_app = ApplicationFactory(app_type="thing", application_url="https://thing.example.com",
                                   redirect_uris="https://thing.example.com/callback")
    oauth_services.authorization_grant(application=thing_app, user=user_a)
    first = services.host_token_issue(application=thing_app, user=user_a)
    plain = first.token
    assert WIRE.fullmatch(plain)
    assert AccessToken.objects.get(pk=first.pk).token == ""
    sealed = HostToken.objects.get(access_token=first).sealed_token
    assert sealed and plain not in sealed
    again = services.host_token_issue(application=thing_app, user=user_a)
    assert again.pk == first.pk and again.token == plain


def test_the_migration_forgets_existing_plain_values_and_they_keep_working(user_a, app_x):
    migration = importlib.import_module("apps.oauth.migrations.0006_tokens_hashed_at_rest")
    client = token_client(user_a, app_x)
    plain = client.token.token
    # A row as it was stored before: the plain value in the column (written past the model's save).
    AccessToken.objects.filter(pk=client.token.pk).update(token=plain)
    refresh = RefreshToken.objects.create(user=user_a, application=app_x, token="ab" * 16,
                                          access_token=client.token)
    RefreshToken.objects.filter(pk=refresh.pk).update(token="ab" * 16)
    assert sorted(_every_token_column()) == sorted([plain, "ab" * 16])

    migration.forget_plain_values(django_apps, None)

    assert _every_token_column() == ["", ""]
    assert AccessToken.objects.get(pk=client.token.pk).token_checksum == _sha(plain)
    assert RefreshToken.objects.get(pk=refresh.pk).token_checksum == _sha("ab" * 16)
    assert client.get("/users/me").status_code == 200


def test_the_cached_token_row_holds_only_what_authentication_needs(user_a, app_x, settings):
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5
    user_a.email = "alice.secret@example.com"
    user_a.bio = "A long biography"
    user_a.set_password("a-long-password-1")
    user_a.save()
    client = token_client(user_a, app_x)
    for _ in range(3):  # the first requests stamp last_active and the app's last use, dropping the row
        assert client.get("/users/me").status_code == 200
    row = token_cache().get(token_cache_key(_sha(client.token.token)))
    assert row is not None, "the row should be cached"
    text = repr(row)
    assert user_a.password not in text and "pbkdf2" not in text and "md5$" not in text
    assert "alice.secret@example.com" not in text and "A long biography" not in text
    # …and a request answered from that cached row still serves the whole profile.
    me = client.get("/users/me")
    assert me.status_code == 200
    assert me.json()["email"] == "alice.secret@example.com"
