"""Helpers of the wire-compatibility tests (DECISIONS.md's compat rules, issue 13)."""
from functools import cache

from drf_spectacular.generators import SchemaGenerator


@cache
def openapi_document() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def api_operations() -> list[tuple[str, str]]:
    """(METHOD, path) of every operation the OpenAPI document lists, i.e. of every API view."""
    return [
        (method.upper(), path)
        for path, item in openapi_document()["paths"].items()
        for method in item
        if method in ("get", "post", "patch", "put", "delete")
    ]
