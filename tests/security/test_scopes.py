"""OAuth scopes mean what the consent page says (issue 22, finding 1; docs/decisions.md: Scopes, round 3).

`read` and `write`; an authorization without `scope` grants both. A token without `write` gets 403
INSUFFICIENT_SCOPE with `WWW-Authenticate: Bearer error="insufficient_scope", scope="write"` on every
unsafe method of the OpenAPI document (user A's token on A's own objects, so nothing but the scope
refuses it) and changes nothing; reads keep working, on the cached read path too.
"""
import secrets
from datetime import timedelta

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from django.utils import timezone
from oauth2_provider.models import get_access_token_model
from rest_framework.test import APIClient

from tests.support.api import bearer_client, db_state
from apps.oauth.tests.flow import consent, exchange_form, parse_form, redirect_params, token_params
from apps.things.tests.factories import ThingFactory
from tests.security.test_idor import CREATES_OWN, OPEN_TO_OTHERS, OWNER_ONLY, Op

WWW_AUTHENTICATE = 'Bearer error="insufficient_scope", scope="write"'

CREATE_BODIES: dict[str, dict] = {
    "POST /collections/": {"name": "Mine", "description": "x"},
    "POST /comments/": {"body": "Nice", "target_type": "thing", "target_id": 0},
    "POST /groups/": {"name": "Mine", "description": "x"},
    "POST /things/": {"name": "A new thing"},
}
EVERY_WRITE = OWNER_ONLY + OPEN_TO_OTHERS + [
    Op(key.split()[0], key.split()[1], body=CREATE_BODIES[key]) for key in CREATES_OWN
]


def _client_with_scope(user, app, scope: str) -> APIClient:
    token = get_access_token_model().objects.create(
        user=user,
        application=app,
        token=secrets.token_hex(16),
        expires=timezone.now() + timedelta(days=1),
        scope=scope,
    )
    return bearer_client(token)


def _call(client, op: Op, world):
    kwargs = {"data": op.body, "format": "json"} if op.body is not None else {}
    return getattr(client, op.method.lower())(op.url(world), **kwargs)


def _assert_insufficient_scope(response):
    assert response.status_code == 403, response.content[:300]
    assert response.json() == {"error": "Forbidden", "code": 403, "type": "INSUFFICIENT_SCOPE"}
    assert response["WWW-Authenticate"] == WWW_AUTHENTICATE
    assert response["X-Error"] == "Forbidden"


def test_the_table_covers_every_documented_write():
    document = SchemaGenerator().get_schema(request=None, public=True)
    writes = {
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in item
        if method in ("post", "patch", "put", "delete")
    }
    assert sorted(writes - {op.key for op in EVERY_WRITE}) == []


@pytest.mark.parametrize("op", EVERY_WRITE, ids=lambda op: op.key)
def test_a_read_only_scope_cannot_write_anywhere(op, world, user_a, app_x):
    client = _client_with_scope(user_a, app_x, "read")
    before = db_state()
    response = _call(client, op, world)
    _assert_insufficient_scope(response)
    after = db_state()
    assert [label for label in before if before[label] != after[label]] == []


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("post", "/things/", {"name": "Sneaky"}),
        ("patch", "/users/{me}/", {"bio": "changed"}),
        ("post", "/collections/", {"name": "Sneaky", "description": "x"}),
        ("delete", "/things/{thing}/", None),
    ],
)
@pytest.mark.parametrize("scope", ["read", "read foo", "orders:read"])
def test_the_issue_s_writes_need_the_write_scope(method, path, body, scope, user_a, app_x):
    thing = ThingFactory(creator=user_a)
    client = _client_with_scope(user_a, app_x, scope)
    url = path.format(me=user_a.username, thing=thing.pk)
    response = getattr(client, method)(url, data=body, format="json")
    _assert_insufficient_scope(response)


@pytest.mark.parametrize("scope", ["read write", "write", ""])
def test_a_token_with_write_or_without_any_scope_may_write(scope, user_a, app_x):
    client = _client_with_scope(user_a, app_x, scope)
    response = client.post("/things/", data={"name": "Allowed"}, format="json")
    assert response.status_code == 200, response.content
    response = client.patch(f"/users/{user_a.username}/", data={"bio": "ok"}, format="json")
    assert response.status_code == 200, response.content


def test_a_read_only_scope_still_reads(user_a, app_x):
    thing = ThingFactory(creator=user_a)
    client = _client_with_scope(user_a, app_x, "read")
    assert client.get("/users/me").status_code == 200
    assert client.get(f"/things/{thing.pk}/").status_code == 200


def test_anonymous_writes_stay_401():
    response = APIClient().post("/things/", data={"name": "x"}, format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"


def test_the_cached_read_path_answers_reads_and_never_lets_a_write_through(user_a, app_x, settings):
    """With the token row and the Thing's body cached, the read-scoped token's GET is answered from the
    cache, through the same pipeline as every request (issue 24); its writes are refused by that
    pipeline's scope check."""
    settings.THING_BODY_CACHE_SECONDS = 600
    settings.OAUTH_TOKEN_CACHE_SECONDS = 5
    thing = ThingFactory(creator=user_a)
    client = _client_with_scope(user_a, app_x, "read")
    for _ in range(3):
        assert client.get(f"/things/{thing.pk}/").status_code == 200
    response = client.get(f"/things/{thing.pk}/")
    assert response.status_code == 200
    assert getattr(response, "thingyard_from_cache", False), "the cache should have answered the read"
    _assert_insufficient_scope(client.patch(f"/things/{thing.pk}/", data={"name": "x"}, format="json"))
    _assert_insufficient_scope(client.delete(f"/things/{thing.pk}/"))
    assert client.get(f"/things/{thing.pk}/").status_code == 200


def _consented_token(browser, app, **params) -> tuple[str, list[str]]:
    page = browser.get("/login/oauth/authorize", {"client_id": app.client_id, "response_type": "code", **params})
    assert page.status_code == 200, page.content
    listed = list(page.context["scopes_descriptions"])
    code = redirect_params(consent(browser, app, response_type="code", **params))["code"]
    response = exchange_form(Client(), token_params(app, code))
    assert response.status_code == 200, response.content
    return parse_form(response)["access_token"], listed


def test_a_real_consent_to_read_gives_a_token_that_cannot_write(browser, app, user_a):
    token, listed = _consented_token(browser, app, scope="read")
    assert listed == ["Read your data"]
    client = APIClient(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/users/me").status_code == 200
    _assert_insufficient_scope(client.post("/things/", data={"name": "x"}, format="json"))
    _assert_insufficient_scope(client.patch(f"/users/{user_a.username}/", data={"bio": "x"}, format="json"))


def test_a_consent_without_scope_names_and_grants_both(browser, app):
    token, listed = _consented_token(browser, app)
    assert listed == ["Read your data", "Change your data"]
    client = APIClient(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.post("/things/", data={"name": "x"}, format="json").status_code == 200


def test_a_consent_to_write_alone_names_the_reading_it_allows_too(browser, app):
    """Every token reads: the page must not promise "Change your data" alone."""
    token, listed = _consented_token(browser, app, scope="write")
    assert listed == ["Read your data", "Change your data"]
    client = APIClient(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/users/me").status_code == 200
    assert client.post("/things/", data={"name": "x"}, format="json").status_code == 200
