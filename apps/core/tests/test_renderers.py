"""The one renderer (apps.core.pipeline.renderers): orjson's bytes are DRF's JSONRenderer's, byte for byte,
for every kind of value an API body holds, and DRF's own path answers what orjson does not."""
import datetime
import decimal
import json
import uuid
from collections import OrderedDict

import pytest
from django.utils.functional import lazy
from rest_framework.renderers import JSONRenderer
from rest_framework.serializers import Serializer
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

from apps.core.pipeline.renderers import ApiJSONRenderer, Rendered, render

UTC = datetime.UTC
_lazy_text = lazy(lambda: "lazy text", str)

VALUES = [
    {"id": 1, "name": "Parametric Cable Clip", "is_published": True, "like_count": 0, "thumbnail": None},
    {"text": "ünïcödé ✓ 漢字 😀", "quote": 'a "b" \\ c', "controls": "\x00\x01\x1f\n\r\t\b\f\x7f"},
    {"separators": "line\u2028paragraph\u2029end"},
    {"aware": datetime.datetime(2026, 11, 28, 12, 0, 0, tzinfo=UTC)},
    {"aware_micro": datetime.datetime(2026, 11, 28, 12, 0, 0, 123456, tzinfo=UTC)},
    {"other_zone": datetime.datetime(2026, 11, 28, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))},
    {"naive": datetime.datetime(2026, 11, 28, 12, 0, 0, 500)},
    {"date": datetime.date(2026, 11, 28), "time": datetime.time(12, 30, 1, 250000)},
    {"decimal": decimal.Decimal("0.20"), "float": 0.2, "big_float": 1e16, "negative": -0.0, "tenth_mm": 0.05},
    {"uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"), "lazy": _lazy_text()},
    {"bytes": b"raw", "tuple": (1, 2), "set_free": [], "nested": {"a": [{"b": None}]}},
    {1: "int key", "2": "str key", None: "none key", 2.5: "float key"},
    OrderedDict([("z", 1), ("a", 2)]),
    ReturnDict({"serializer": "dict"}, serializer=Serializer()),
    ReturnList([{"x": 1}], serializer=Serializer()),
    [1, "two", 3.0, None, False],
    "a plain string",
    42,
    2**63 - 1,
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_orjson_bytes_are_drfs(value):
    assert ApiJSONRenderer().render(value) == JSONRenderer().render(value)


def test_a_float_under_a_ten_thousandth_is_the_same_number_in_shorter_text():
    # Python writes 1.5e-07 and 1.5e-05, orjson 1.5e-7 and 0.000015 (docs/decisions.md: JSON bodies by orjson).
    value = {"tiny": 1.5e-7, "small": 1.5e-5, "least": 5e-324}
    assert json.loads(render(value)) == json.loads(JSONRenderer().render(value)) == value


def test_line_separators_stay_escaped_for_json_p():
    body = render({"text": "a\u2028b\u2029c"})
    assert b"\\u2028" in body and b"\\u2029" in body
    assert "\u2028".encode() not in body


def test_a_kept_body_passes_through_and_none_is_empty():
    assert render(Rendered(b'{"kept":true}')) == b'{"kept":true}'
    assert ApiJSONRenderer().render(None) == b""


def test_what_orjson_refuses_is_drfs_to_render():
    huge = {"n": 2**70}
    assert ApiJSONRenderer().render(huge) == JSONRenderer().render(huge) == b'{"n":1180591620717411303424}'


def test_an_indented_body_is_drfs():
    value = {"a": [1, 2]}
    renderer = ApiJSONRenderer()
    assert renderer.render(value, "application/json; indent=4") == JSONRenderer().render(value, "application/json; indent=4")
    assert renderer.render(value, "application/json; indent=4").startswith(b"{\n")


def test_a_float_that_is_no_number_is_null_not_a_server_error():
    # DRF's strict JSON raises (a 500); the body says null instead (docs/decisions.md: JSON bodies by orjson).
    assert json.loads(render({"x": float("nan"), "y": float("inf")})) == {"x": None, "y": None}


def test_settings_asking_for_ascii_take_drfs_path(settings):
    class AsciiRenderer(ApiJSONRenderer):
        ensure_ascii = True

    assert AsciiRenderer().render({"t": "é"}) == JSONRenderer.render(AsciiRenderer(), {"t": "é"}) == b'{"t":"\\u00e9"}'


def test_an_api_answer_is_rendered_by_it(api):
    response = api.get("/users/me")
    assert response.status_code == 200
    assert response.content == JSONRenderer().render(response.json())
