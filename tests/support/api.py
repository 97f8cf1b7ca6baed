"""Helpers every app's tests share: the error body's checks, Bearer clients, and the access matrix.

Like apps.core, this imports no app: tokens are made through django-oauth-toolkit's model
getters, users through the user model; the fixtures that build them (`client_for`, `user`, `access`)
live in the root conftest.py.

The access matrix (STYLE.md: Tests) of an endpoint is declared once, NetBox style, and checked for each
kind of caller that must be refused:

    MATRIX = [
        Access("PATCH", "/things/{id}/", body={"name": ""}, stranger=403),  # 403 before any 400
        Access("DELETE", "/things/{id}/", stranger=403),
    ]

    @pytest.mark.parametrize("endpoint, caller", access_cases(MATRIX))
    def test_access_matrix(access, endpoint, caller, user):
        access(endpoint, caller, ThingFactory(creator=user))

`access` calls the endpoint on an object of the token's user (`user`) as the caller and asserts the
declared status with docs/decisions.md's error body; a refused call must leave every row as it was.
"""
from __future__ import annotations

import secrets
import string
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.db.models import Model
from django.utils import timezone
from oauth2_provider.models import get_access_token_model
from rest_framework.test import APIClient

# --- docs/decisions.md's error body --------------------------------------------------------------------------

SHORT_REASONS = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}


def assert_error(response, status: int, error_type: str | None = None) -> dict:
    """docs/decisions.md: every error is JSON {error, code, type} with the reason repeated in X-Error."""
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == status
    assert response["X-Error"] == body["error"]
    if status in SHORT_REASONS:
        assert body["error"] == SHORT_REASONS[status]
    if error_type is not None:
        assert body["type"] == error_type
    return body


def assert_unauthorized(response) -> None:
    assert_error(response, 401, "UNAUTHORIZED")
    assert response.json() == {"error": "Unauthorized", "code": 401, "type": "UNAUTHORIZED"}
    assert response["WWW-Authenticate"] == "Bearer"


def ids(response) -> list[int]:
    """The ids of a 200 list answer, in order."""
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()]


# --- clients ------------------------------------------------------------------------------------------


class TokenAPIClient(APIClient):
    """An APIClient that carries the token it sends (`client.token`): tests read it back or change it."""

    token: Any


def bearer_client(token) -> TokenAPIClient:
    """An APIClient sending `token` as `Authorization: Bearer` (`client.token` is the token)."""
    client = TokenAPIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token.token}")
    client.token = token
    return client


def token_client(user, app) -> TokenAPIClient:
    """An APIClient with a real, fresh Bearer token of `user` issued to `app` (user None: the app's own
    read-only token)."""
    token = get_access_token_model().objects.create(
        user=user,
        application=app,
        token=secrets.token_hex(16),  # docs/decisions.md: 32 lower-case hex characters
        expires=timezone.now() + timedelta(days=1),
        scope="read write",
    )
    return bearer_client(token)


def csrf_token(client) -> str:
    """The CSRF token of a Django test client's session (what a page embeds for its forms and scripts)."""
    from django.middleware.csrf import _get_new_csrf_string, _mask_cipher_secret  # type: ignore[attr-defined]

    secret = client.cookies.get("csrftoken")
    if secret is None:
        secret = _get_new_csrf_string()
        client.cookies["csrftoken"] = secret
    else:
        secret = secret.value
    return _mask_cipher_secret(secret)


# --- the access matrix ----------------------------------------------------------------------------------

ANONYMOUS = "anonymous"  # no token at all
STRANGER = "stranger"  # another user's token, on the owner's object
MISSING = "missing"  # the owner's token, on an id that names nothing
OTHER_APP = "other_app"  # the owner's own token, issued to another application
CALLERS = (ANONYMOUS, STRANGER, MISSING, OTHER_APP)
MISSING_ID = 999999


@dataclass(frozen=True)
class Access:
    """Who may not call an endpoint, and what they get (None: that caller is not part of its matrix).

    `path` names the object's id `{id}`; other placeholders are filled from the `access` call's keyword
    arguments. `missing` replaces `missing_param` (by default `{id}`, else the path's first placeholder)
    with an id that names nothing.
    """

    method: str
    path: str
    body: dict | str | None = None
    anonymous: int | None = 401
    stranger: int | None = 403
    missing: int | None = 404
    other_app: int | None = None
    missing_param: str | None = None
    error_type: dict = field(default_factory=dict)  # caller → the `type` the error body must name

    def expected(self, caller: str) -> int | None:
        return getattr(self, caller)

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def placeholders(self) -> list[str]:
        return [name for _, name, _, _ in string.Formatter().parse(self.path) if name]

    @property
    def missing_placeholder(self) -> str:
        if self.missing_param:
            return self.missing_param
        return "id" if "id" in self.placeholders else self.placeholders[0]


def access_cases(endpoints) -> list:
    """`pytest.mark.parametrize("endpoint, caller", access_cases(MATRIX))`: one case per refused caller."""
    return [
        pytest.param(endpoint, caller, id=f"{endpoint.key} as {caller}")
        for endpoint in endpoints
        for caller in CALLERS
        if endpoint.expected(caller) is not None
    ]


# Rows a refused request may legitimately touch: the caller's own activity stamp (spec §2 last_active).
VOLATILE_FIELDS = {(settings.AUTH_USER_MODEL, "last_active")}
UNWATCHED_APPS = {"sessions", "admin", "contenttypes", "auth"}


def db_state() -> dict:
    """A digest of every row of every model (minus VOLATILE_FIELDS), per model, to prove a refused request
    changed nothing. PostgreSQL computes it in one statement (the md5 of each table's rows as text, in
    primary-key order, and their count), instead of reading every table into Python twice per check."""
    from django.db import connection

    quote = connection.ops.quote_name
    selects, labels = [], []
    for model in django_apps.get_models():
        if model._meta.app_label in UNWATCHED_APPS or model._meta.proxy or not model._meta.managed:
            continue
        label = model._meta.label
        columns = ", ".join(
            quote(f.column) for f in model._meta.concrete_fields
            if f.column and (label, f.name) not in VOLATILE_FIELDS
        )
        pk = model._meta.pk.column if model._meta.pk is not None else None
        assert pk, label
        selects.append(
            f"SELECT %s::text, md5(coalesce(string_agg(ROW({columns})::text, E'\\n' ORDER BY {quote(pk)}),"
            f" '')), count(*) FROM {quote(model._meta.db_table)}"
        )
        labels.append(label)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(selects), labels)
        return {label: (digest, count) for label, digest, count in cursor.fetchall()}


def assert_unchanged(before: dict, what: str) -> None:
    after = db_state()
    changed = [label for label in before if before[label] != after[label]]
    assert changed == [], f"{what} changed {changed}"


def access_check(endpoint: Access, caller: str, obj: Model | None, *, clients: dict, **path_values):
    """Call `endpoint` as `caller` (clients: caller → APIClient, made lazily by the `access` fixture) and
    assert the declared status with docs/decisions.md's body; a refused call changes no row of the database."""
    expected = endpoint.expected(caller)
    assert expected is not None, f"{endpoint.key}: no expectation for {caller}"
    values = dict(path_values)
    if obj is not None:
        values.setdefault("id", obj.pk)
    if caller == MISSING:
        values[endpoint.missing_placeholder] = MISSING_ID
    path = endpoint.path.format(**{name: values[name] for name in endpoint.placeholders})
    before = db_state()
    call = getattr(clients[caller], endpoint.method.lower())
    if endpoint.body is None:
        response = call(path)
    elif isinstance(endpoint.body, str):  # a form body, as some clients send
        response = call(path, endpoint.body, content_type="application/x-www-form-urlencoded")
    else:
        response = call(path, endpoint.body, format="json")
    if expected == 401:
        assert_unauthorized(response)
    else:
        assert_error(response, expected, endpoint.error_type.get(caller))
    assert_unchanged(before, f"{endpoint.key} as {caller}")
    return response


class UnreachableBroker:
    """Points the Celery app at a broker nobody answers (publishing for real, not eager), as when Redis is
    down, and back: `down()`, `up()`. Tests that need the broker really unreachable use it as a fixture
    and call `up()` when done."""

    def __init__(self):
        from celery import current_app

        # The project's app (config/celery.py, loaded with Django, is the current one); core imports
        # nothing of config.
        app = current_app._get_current_object()
        self.app = app
        self.saved = (app.conf.broker_url, app.conf.task_always_eager)

    def _point(self, url: str, eager: bool) -> None:
        self.app.conf.broker_url = url
        self.app.conf.task_always_eager = eager
        # Pools are cached per app; forget them so the next publish connects to `url`.
        self.app._pool = None
        self.app.amqp._producer_pool = None

    def down(self) -> None:
        self._point("redis://127.0.0.1:1/0", False)  # nothing listens on port 1

    def up(self) -> None:
        self._point(*self.saved)
