"""No cache keeps an API answer (RFC 6750 §5.3; issue 14, finding 10; docs/security.md).

Every answer of the API pipeline (apps.core.pipeline.views.ApiView) says `Cache-Control: private, no-store` and
names `Authorization` in `Vary`, whether the token came in the header or the query string, on success
and on error.
"""
import pytest
from rest_framework.test import APIClient

from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def _assert_not_cacheable(response):
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    assert {"private", "no-store"} <= directives, response.get("Cache-Control")
    vary = {part.strip().lower() for part in response.get("Vary", "").split(",")}
    assert "authorization" in vary, response.get("Vary")


def test_users_me_with_the_e_mail_address_is_never_cached(a_via_x, user_a):
    response = a_via_x.get("/users/me")
    assert response.status_code == 200 and response.json()["email"] == user_a.email
    _assert_not_cacheable(response)


def test_an_answer_to_a_query_string_token_is_never_cached(a_via_x):
    token = a_via_x.token.token
    response = APIClient().get(f"/users/me?access_token={token}")
    assert response.status_code == 200
    _assert_not_cacheable(response)


def test_a_json_p_answer_is_never_cached(a_via_x):
    token = a_via_x.token.token
    response = APIClient().get(f"/users/me?access_token={token}&callback=cb")
    assert response.status_code == 200 and response.content.startswith(b"/**/cb(")
    _assert_not_cacheable(response)


@pytest.mark.parametrize("path", ["/newest/", "/things/{thing}/", "/users/alice_a/", "/categories/"])
def test_public_reads_through_a_token_are_never_cached(a_via_x, user_a, path):
    thing = ThingFactory(creator=user_a, is_published=True)
    response = a_via_x.get(path.format(thing=thing.pk))
    assert response.status_code == 200, response.content
    _assert_not_cacheable(response)


@pytest.mark.parametrize("status,request_it", [
    (401, lambda api: APIClient().get("/users/me")),
    (404, lambda api: api.get("/things/999999999/")),
    (400, lambda api: api.patch("/users/me", "{", content_type="application/json")),
])
def test_errors_are_never_cached_either(a_via_x, status, request_it):
    response = request_it(a_via_x)
    assert response.status_code == status
    _assert_not_cacheable(response)
