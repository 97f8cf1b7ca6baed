"""Each wire version's OpenAPI document, and answers checked against it (docs/decisions.md: Wire versions).

The documents are the service's own (apps.core.pipeline.wire.schema_hook on drf-spectacular's), generated as
/openapi.json?version=<v> serves them. `assert_answer_matches` validates an answer's JSON body against
the schema its operation documents for that status (OpenAPI 3.0's `nullable` read as JSON Schema's null
type), as Schemathesis's response_schema_conformance does in `make fuzz` (tests/contract/fuzz.py).
"""
import copy
import re
from functools import cache

import jsonschema
from drf_spectacular.generators import SchemaGenerator


@cache
def document(version: str) -> dict:
    return SchemaGenerator(api_version=version).get_schema(request=None, public=True)


def operation_for(doc: dict, method: str, path: str) -> tuple[str, dict]:
    """(template, operation) of the documented path matching a concrete `path` (query string dropped)."""
    path = path.split("?", 1)[0]
    for template, item in doc["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path) and method.lower() in item:
            return template, item[method.lower()]
    raise AssertionError(f"{method} {path} is not documented")


def assert_answer_matches(version: str, method: str, path: str, response) -> None:
    doc = document(version)
    template, operation = operation_for(doc, method, path)
    documented = operation["responses"].get(str(response.status_code))
    assert documented is not None, f"{method} {template}: {response.status_code} is not documented"
    schema = documented.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return  # a documented answer without a body (a redirect, an empty 200)
    full = _json_schema({**copy.deepcopy(schema), "components": doc["components"]})
    try:
        jsonschema.validate(response.json(), full)
    except jsonschema.ValidationError as exc:
        raise AssertionError(f"{version}: {method} {path} ({template}) {response.status_code}: {exc.message} "
                             f"at {list(exc.absolute_path)}") from None


def _json_schema(node):
    """OpenAPI 3.0 → JSON Schema: `nullable: true` admits null."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _json_schema(value) for key, value in node.items()}
    if node.pop("nullable", False):
        if "enum" in node:
            node["enum"] = [*node["enum"], None]
        if isinstance(node.get("type"), str):
            node["type"] = [node["type"], "null"]
        else:
            node = {"anyOf": [node, {"type": "null"}]}
    return node
