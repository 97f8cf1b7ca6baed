"""The OpenAPI document covers spec §4 and describes each operation fully: bodies, errors, headers, auth.

The document is what Schemathesis checks the live API against (`make fuzz`); these tests make sure it
is complete enough for that check to mean something.
"""
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from apps.core.pipeline.handlers import error_body
from tests.contract.spec_endpoints import (
    SPEC_ENDPOINTS,
    normalize,
    path_shapes,
    spec_endpoints_parse,
)

# The original spec, where a checkout keeps it beside the repository (the only reference to a path
# outside the repository: this repository describes the API in docs/api.md).
SPEC_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "spec" / "api-spec.md"
METHODS = ("get", "post", "patch", "put", "delete")
# Spec endpoints whose feature is not built yet (none: list "METHOD /path" here, and tell the lead).
NOT_YET_BUILT: set[str] = set()


@pytest.fixture(scope="module")
def document():
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture(scope="module")
def shapes(document):
    """normalized path → the methods documented under any path of that shape."""
    out: dict[str, set[str]] = {}
    for path, item in document["paths"].items():
        out.setdefault(normalize(path), set()).update(m for m in item if m in METHODS)
    return out


def operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def test_the_checked_in_endpoint_list_is_the_spec_s():
    if not SPEC_PATH.exists():
        pytest.skip(f"the spec is not beside the repository ({SPEC_PATH})")
    assert spec_endpoints_parse(SPEC_PATH.read_text()) == SPEC_ENDPOINTS


@pytest.mark.parametrize(
    ("method", "path", "optional"),
    [
        pytest.param(
            *row,
            id=f"{row[0]} {row[1]}",
            marks=[pytest.mark.xfail(reason="not built yet", strict=False)]
            if f"{row[0]} {row[1]}" in NOT_YET_BUILT else [],
        )
        for row in SPEC_ENDPOINTS
    ],
)
def test_every_spec_endpoint_is_documented(shapes, method, path, optional):
    # An optional parameter means both forms exist: /things/{id}/images and /things/{id}/images/{image_id}.
    missing = [
        shape for shape in path_shapes(path, optional) if method.lower() not in shapes.get(shape, set())
    ]
    assert missing == []


def test_every_operation_documents_a_success_and_its_error_statuses(document):
    problems = []
    for path, method, operation in operations(document):
        responses = operation["responses"]
        label = f"{method.upper()} {path}"
        if not any(code.startswith(("2", "3")) for code in responses):
            problems.append(f"{label}: no success response")
        expected = {"400", "401", "403", "429", "503"}
        if "{" in path:
            expected.add("404")
        missing = expected - set(responses)
        if missing:
            problems.append(f"{label}: no {sorted(missing)}")
        for code, response in responses.items():
            # The spec's "no body" operations answer 200 with an empty body (apps.core.pipeline.statuses).
            if code.startswith("2") and "content" not in response and not _no_body(response):
                problems.append(f"{label}: {code} has no body schema")
    assert problems == []


def test_every_operation_takes_the_token_in_the_header_or_the_query(document):
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": schemes["bearerAuth"]["description"],
    }
    query = schemes["accessTokenQuery"]
    assert (query["in"], query["name"]) == ("query", "access_token")
    for path, method, operation in operations(document):
        security = operation.get("security", [])
        # `{}` would mean "anonymous is fine": spec §5, every request needs the token.
        assert {} not in security, f"{method.upper()} {path}"
        label = f"{method.upper()} {path}"
        assert {"bearerAuth": []} in security and {"accessTokenQuery": []} in security, label


def test_successes_carry_the_rate_limit_headers_and_errors_the_x_error_header(document):
    for path, method, operation in operations(document):
        for code, response in operation["responses"].items():
            headers = response.get("headers", {})
            if code.startswith("2"):
                assert headers["X-RateLimit-Remaining"]["required"] is True, f"{method} {path} {code}"
            if code.startswith("4"):
                assert headers["X-Error"]["required"] is True, f"{method} {path} {code}"
            if code == "401":
                assert "WWW-Authenticate" in headers
            if code in ("429", "503"):
                assert "Retry-After" in headers


def test_list_operations_document_the_link_header(document):
    item = document["paths"]["/things/{thing_id}/likes"]["get"]
    assert "Link" in item["responses"]["200"]["headers"]
    assert {p["name"] for p in item["parameters"]} >= {"page", "per_page"}


def test_the_error_component_is_the_body_the_handler_renders(document):
    import jsonschema

    component = document["components"]["schemas"]["Error"]
    for body in (
        error_body(404, None, "NOT_FOUND"),
        error_body(400, "name: required", "VALIDATION_FAILED", {"name": ["This field is required."]}),
        error_body(400, "Not publishable", "NOT_PUBLISHABLE", ["Description cannot be blank."]),
    ):
        jsonschema.validate(body, component)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"error": "Not Found"}, component)


def _no_body(response) -> bool:
    return response.get("description") == "Success, with an empty body."


def test_a_delete_that_answers_ok_is_documented_as_200_with_the_ok_body(document):
    responses = document["paths"]["/things/{thing_id}/"]["delete"]["responses"]
    assert "204" not in responses
    assert responses["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Ok"}
    # …and the spec's "no body" deletes are a 200 with an empty body (docs/decisions.md: status codes).
    no_body = document["paths"]["/users/{username}/"]["delete"]["responses"]
    assert "204" not in no_body and "content" not in no_body["200"] and _no_body(no_body["200"])


def test_the_only_success_statuses_documented_are_200_and_the_listed_exceptions(document):
    # docs/decisions.md (compat): every success is 200, except the download's redirect and package-url's 202.
    found = {
        (method.upper(), path, code)
        for path, method, operation in operations(document)
        for code in operation["responses"]
        if code.startswith(("2", "3")) and code != "200"
    }
    assert found == {
        ("GET", "/files/{file_id}/download", "302"),
        ("GET", "/things/{thing_id}/package-url", "202"),
    }


def test_request_inputs_document_what_the_parser_accepts(document):
    thing_input = document["components"]["schemas"]["ThingCreateInputRequest"]["properties"]
    # spec §4.11: thing_save's is_wip is a number, and form bodies send text.
    assert {"type": "integer", "enum": [0, 1]} in thing_input["is_wip"]["oneOf"]
    patch = document["paths"]["/things/{thing_id}/"]["patch"]["requestBody"]["content"]["application/json"]
    assert patch["schema"]["nullable"] is True  # docs/decisions.md: `null` means no fields
    parameters = document["paths"]["/things/{thing_id}/likes"]["get"]["parameters"]
    page = next(p for p in parameters if p["name"] == "page")
    assert page["allowEmptyValue"] is True
