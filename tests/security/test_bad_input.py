"""Hostile input is a 400 with the error body, never a 500 (issue 14, findings 2 and 3; docs/security.md).

Every request goes through the real middleware, views, DOT and oauthlib; the unauthenticated OAuth
endpoints are attacked without a token.
"""
import base64
import json

import pytest
from django.test import Client

from tests.support.api import assert_error
from apps.oauth.tests.factories import APP_SECRET, ApplicationFactory
from apps.oauth.tests.flow import REVOKE, TOKEN, TOKENINFO

pytestmark = pytest.mark.django_db

# Deeper than the decoder's stack: json.loads raises RecursionError (not ValueError).
DEEP_OBJECT = '{"a":' * 50000 + "1" + "}" * 50000
DEEP_ARRAY = "[" * 100000 + "]" * 100000
MALFORMED = "Malformed JSON in request body: nested too deeply"


# --- Finding 2: deeply nested JSON ------------------------------------------------------------------

@pytest.mark.parametrize("path", [TOKEN, TOKENINFO, REVOKE])
@pytest.mark.parametrize("body", [DEEP_OBJECT, DEEP_ARRAY], ids=["object", "array"])
def test_deeply_nested_json_at_an_oauth_endpoint_is_a_400(path, body):
    response = Client().post(path, body, content_type="application/json")
    assert assert_error(response, 400, "MALFORMED_JSON")["error"] == MALFORMED


@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded", ""])
def test_deeply_nested_json_at_the_token_endpoint_is_a_400_whatever_the_label(content_type):
    response = Client().post(TOKEN, DEEP_OBJECT, content_type=content_type)
    assert_error(response, 400, "MALFORMED_JSON")


@pytest.mark.parametrize("body", [DEEP_OBJECT, DEEP_ARRAY], ids=["object", "array"])
def test_deeply_nested_json_in_an_api_body_is_a_400(api, body):
    response = api.patch("/users/me", body, content_type="application/json")
    assert assert_error(response, 400, "MALFORMED_JSON")["error"] == MALFORMED


def test_deeply_nested_json_labelled_as_a_form_is_a_400_too(api):
    response = api.patch("/users/me", DEEP_OBJECT, content_type="application/x-www-form-urlencoded")
    assert_error(response, 400, "MALFORMED_JSON")


# --- Finding 3: NUL characters ------------------------------------------------------------------------

NUL_TYPE = "INVALID_CHARACTER"


@pytest.mark.parametrize("path", ["/users/%00/", "/users/a%00b", "/@%00", "/things/%00/", "/search/bracket%00/",
                                  "/groups/%00", "/thing-apps/dialogs/thing_select?filter=%00bogus"])
def test_a_nul_in_a_path_or_query_is_a_400(api, path):
    assert_error(api.get(path), 400, NUL_TYPE)


@pytest.mark.parametrize("path", ["/@%00", "/users/%00/", "/login/?next=%00"])
def test_a_nul_is_a_400_without_a_token_too(path):
    assert_error(Client().get(path), 400, NUL_TYPE)


def test_a_nul_in_a_query_parameter_of_an_api_list_is_a_400(api):
    assert_error(api.get("/newest/", {"sort": "a\x00b"}), 400, NUL_TYPE)


def test_a_nul_in_a_json_body_string_is_a_400(api):
    body = json.dumps({"bio": "a\x00b"})  # the `\u0000` escape
    assert "\\u0000" in body
    assert_error(api.patch("/users/me", body, content_type="application/json"), 400, NUL_TYPE)


def test_a_nul_in_a_json_key_is_a_400(api):
    body = json.dumps({"a\x00": 1})
    assert_error(api.patch("/users/me", body, content_type="application/json"), 400, NUL_TYPE)


def test_an_escaped_backslash_before_u0000_is_plain_text_not_a_nul(api):
    body = json.dumps({"bio": "see \\u0000 in the docs"})  # `\\u0000`: a backslash, then text
    response = api.patch("/users/me", body, content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["bio"] == "see \\u0000 in the docs"


def test_a_nul_in_a_form_body_is_a_400(api):
    response = api.patch("/users/me", "bio=a%00b", content_type="application/x-www-form-urlencoded")
    assert_error(response, 400, NUL_TYPE)


@pytest.mark.parametrize("body", ["client_id=a%00b&client_secret=x&code=y", "client_id=x&code=a%00b",
                                  '{"client_id": "a\\u0000b", "code": "y"}'])
def test_a_nul_at_the_token_endpoint_is_a_400(body):
    content_type = "application/json" if body.startswith("{") else "application/x-www-form-urlencoded"
    assert_error(Client().post(TOKEN, body, content_type=content_type), 400, NUL_TYPE)


def test_a_nul_in_the_token_endpoint_s_query_string_is_a_400():
    assert_error(Client().post(TOKEN + "?client_id=a%00b&code=y"), 400, NUL_TYPE)


def test_a_nul_in_a_basic_auth_client_id_is_invalid_client_not_a_500():
    credentials = base64.b64encode(f"a\x00b:{APP_SECRET}".encode()).decode()
    response = Client().post(TOKEN, "code=y", content_type="application/x-www-form-urlencoded",
                             HTTP_AUTHORIZATION=f"Basic {credentials}")
    assert response.status_code == 401
    assert "invalid_client" in response.content.decode()


def test_a_nul_at_tokeninfo_and_revoke_is_a_400():
    assert_error(Client().get(TOKENINFO + "?access_token=a%00b"), 400, NUL_TYPE)
    app = ApplicationFactory()
    body = f"client_id={app.client_id}&client_secret={APP_SECRET}&token=a%00b"
    assert_error(Client().post(REVOKE, body, content_type="application/x-www-form-urlencoded"), 400, NUL_TYPE)


def test_a_nul_in_a_site_form_is_a_400(user):
    body = "username=a%00b&password=x"
    response = Client().post("/login/", body, content_type="application/x-www-form-urlencoded")
    assert_error(response, 400, NUL_TYPE)


def test_a_nul_in_a_multipart_site_form_is_refused_by_the_form_itself(user):
    # Multipart bodies are left to the forms: Django's CharField refuses NUL (no 500, no login).
    response = Client().post("/login/", {"username": "a\x00b", "password": "x"})
    assert response.status_code == 200
    assert "_auth_user_id" not in Client().session
