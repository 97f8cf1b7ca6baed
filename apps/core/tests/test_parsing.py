"""Request bodies are JSON whatever Content-Type says (docs/decisions.md: Requests)."""
import json

import pytest

pytestmark = pytest.mark.urls("apps.core.tests.urls")

BODY = json.dumps({"name": "Widget", "is_wip": True, "tags": ["a", "b"]})


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/x-www-form-urlencoded",
        "text/plain",
        "",
    ],
)
def test_json_body_is_parsed_whatever_the_content_type(api, content_type):
    response = api.generic("POST", "/echo", BODY, content_type=content_type)
    assert response.status_code == 200
    assert response.json() == {"data": json.loads(BODY)}


def test_json_body_without_any_content_type_header_is_parsed(rf, api):
    from apps.core.tests.urls import EchoView

    request = rf.post("/echo", BODY, content_type="", HTTP_AUTHORIZATION=f"Bearer {api.token.token}")
    del request.META["CONTENT_TYPE"]  # as a WSGI server passes a request that has no such header
    response = EchoView.as_view()(request)
    assert response.status_code == 200
    assert response.data == {"data": json.loads(BODY)}


@pytest.mark.parametrize("body", ["", "null", "  null\n", "   ", "\r\n\t ", "\nnull\r\n"])
@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded", ""])
def test_empty_and_null_bodies_mean_no_fields(api, body, content_type):
    response = api.generic("POST", "/echo", body, content_type=content_type)
    assert response.status_code == 200
    assert response.json()["data"] == {}


@pytest.mark.parametrize(
    "body, content_type",
    [
        # A form feed or a vertical tab is no JSON whitespace: such a body is not an empty one (Schemathesis).
        ("\x0c", "application/json"),
        ("\x0b", "application/json"),
        ("\x0cnull", "application/json"),
        ('{"name": "x",}', "application/json"),
        ('{"name": "x"', "application/x-www-form-urlencoded"),
        ("[1, 2", ""),
        ("name=x", "application/json"),
        ('{"n": NaN}', "application/json"),
    ],
)
def test_malformed_json_is_a_400_with_a_clear_message(api, body, content_type):
    response = api.generic("POST", "/echo", body, content_type=content_type)
    assert response.status_code == 400
    payload = response.json()
    assert payload["type"] == "MALFORMED_JSON"
    assert payload["code"] == 400
    assert payload["error"].startswith("Malformed JSON in request body")
    assert response["X-Error"] == payload["error"]


@pytest.mark.parametrize("body", ["[1, 2]", "42", '"text"', "true"])
def test_json_body_that_is_not_an_object_is_a_400(api, body):
    response = api.generic("POST", "/echo", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["type"] == "INVALID_BODY"


def test_form_body_is_a_plain_dict_with_lists_for_repeated_keys(api):
    body = "name=Widget&tag=a&tag=b&cat[]=x&blank="
    response = api.generic("POST", "/echo", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert response.json() == {"data": {"name": "Widget", "tag": ["a", "b"], "cat": ["x"], "blank": ""}}


def test_form_body_without_content_type_is_parsed_as_a_form(api):
    response = api.generic("POST", "/echo", "name=Widget", content_type="")
    assert response.json() == {"data": {"name": "Widget"}}


def test_multipart_body_is_a_plain_dict(api):
    response = api.post("/echo", {"name": "Widget", "tag": ["a", "b"]}, format="multipart")
    assert response.status_code == 200
    assert response.json() == {"data": {"name": "Widget", "tag": ["a", "b"]}}


def test_parse_input_treats_an_empty_form_body_as_no_fields(rf):
    from rest_framework import serializers
    from rest_framework.request import Request

    from apps.core.pipeline.api import parse_input
    from apps.core.pipeline.parsers import LenientJSONParser

    class Input(serializers.Serializer):
        is_wip = serializers.BooleanField(required=False)

    django_request = rf.post("/echo", "", content_type="application/x-www-form-urlencoded")
    request = Request(django_request, parsers=[LenientJSONParser()])
    # A QueryDict would make DRF read the missing boolean as False (HTML-form semantics).
    assert parse_input(Input, request) == {}
