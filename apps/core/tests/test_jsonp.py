"""JSON-P on GET with a safe `callback` (docs/decisions.md: JSON-P and CORS)."""
import json

import pytest

pytestmark = pytest.mark.urls("apps.core.tests.urls")


def unwrap(response, callback: str):
    body = response.content.decode()
    prefix = f"/**/{callback}("
    assert body.startswith(prefix) and body.endswith(");"), body
    return json.loads(body[len(prefix) : -2])


@pytest.mark.parametrize("callback", ["cb", "jQuery_123", "$.handlers.done", "a" * 64])
def test_good_callback_wraps_the_json_as_javascript(api, user, callback):
    response = api.get("/echo", {"callback": callback})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/javascript; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert unwrap(response, callback) == {"user": user.username}


def test_error_answers_are_wrapped_too(anon_client, db):
    response = anon_client.get("/echo", {"callback": "cb"})
    assert response.status_code == 401
    assert unwrap(response, "cb") == {"error": "Unauthorized", "code": 401, "type": "UNAUTHORIZED"}


@pytest.mark.parametrize("callback", ["", "alert(1)", "a-b", "cb;x", "<script>", "a" * 65, "ä"])
def test_any_other_callback_is_a_400_before_the_view_runs(api, callback, django_assert_num_queries):
    # No query at all: the token is not even looked up.
    with django_assert_num_queries(0):
        response = api.get("/echo", {"callback": callback})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["type"] == "INVALID_CALLBACK"


def test_callback_is_ignored_on_post(api):
    response = api.post("/echo?callback=cb", {"a": 1}, format="json")
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"data": {"a": 1}}


def test_session_cookie_never_authenticates_jsonp(client, user):
    client.force_login(user)  # a logged-in site visitor; a third-party page could embed this GET
    response = client.get("/echo", {"callback": "cb"})
    assert response.status_code == 401
