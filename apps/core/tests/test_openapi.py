"""The OpenAPI document: public, valid, and listing every API route of the URLconf.

The route walk covers endpoints added later automatically: an API view missing from the schema (for
example one whose schema generation failed) fails here.
"""
import re

from django.contrib.admindocs.views import simplify_regex
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.views import APIView

# Routes that are not the REST API: the admin, and the OAuth endpoints (spec §5, documented separately).
NON_API_PREFIXES = ("admin/", "login/")


def api_routes(patterns=None, prefix=""):
    """(OpenAPI path, view class, HTTP methods) of every DRF view in the URLconf."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if route.lstrip("^").startswith(NON_API_PREFIXES):
            continue
        if isinstance(pattern, URLResolver):
            yield from api_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if isinstance(view_class, type) and issubclass(view_class, APIView):
                methods = _documented_methods(pattern.callback, view_class)
                if methods:
                    yield _openapi_path(route), view_class, methods


def _documented_methods(callback, view_class) -> set[str]:
    if hasattr(callback, "actions"):  # a ViewSet routed by a router
        names = set(callback.actions)
    else:
        names = {m for m in view_class.http_method_names if hasattr(view_class, m)}
    names -= {"options", "head"}
    # Views that opt out with @extend_schema(exclude=True), as drf-spectacular's own views do.
    generator = SchemaGenerator()
    return {m for m in names if not generator.create_view(callback, m.upper()).schema.is_excluded()}


def _openapi_path(route: str) -> str:
    # `<int:pk>` (and regex groups, once simplified) become `{pk}`, as drf-spectacular writes them.
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", simplify_regex(route))


def test_openapi_json_is_public_valid_openapi_3(anon_client, db):
    response = anon_client.get("/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Thingyard API"
    assert isinstance(schema["paths"], dict)


def test_openapi_json_answers_with_a_trailing_slash_too(anon_client, db):
    assert anon_client.get("/openapi.json/").status_code == 200


def test_docs_page_is_public_in_both_forms(anon_client, db):
    for path in ("/docs/", "/docs"):
        response = anon_client.get(path)
        assert response.status_code == 200, path
        assert b"swagger" in response.content.lower()


def test_schema_lists_every_api_route_of_the_urlconf(anon_client, db):
    documented = anon_client.get("/openapi.json").json()["paths"]
    missing = [
        f"{method.upper()} {path} ({view_class.__name__})"
        for path, view_class, methods in api_routes()
        for method in sorted(methods)
        if method not in documented.get(path, {})
    ]
    assert missing == []


def test_route_walk_finds_api_views_and_skips_the_rest():
    from django.urls import include, path

    from apps.core.tests import urls as test_urls

    patterns = [
        path("admin/things", test_urls.EchoView.as_view()),
        path("login/oauth/tokeninfo", test_urls.EchoView.as_view()),
        path("api/", include([path("things/<int:thing_id>/files", test_urls.EchoView.as_view())])),
        path("openapi.json", SpectacularJSONAPIView.as_view()),
    ]
    assert [(p, methods) for p, _, methods in api_routes(patterns)] == [
        ("/api/things/{thing_id}/files", {"get", "post"})
    ]


def test_request_bodies_are_documented_as_json():
    from apps.core.pipeline.schema import ApiAutoSchema
    from apps.core.tests.urls import EchoView

    schema = ApiAutoSchema()
    schema.view = EchoView()
    assert schema.map_parsers() == ["application/json"]


def test_the_document_is_generated_once_per_version_and_forgotten_when_a_setting_changes(
    anon_client, db, settings, monkeypatch
):
    from apps.core.pipeline import views

    generated = []
    original = SchemaGenerator.get_schema

    def counting(self, *args, **kwargs):
        generated.append(self.api_version)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counting)
    views._DOCUMENTS.clear()
    first = anon_client.get("/openapi.json").json()
    assert anon_client.get("/openapi.json").json() == first
    other = anon_client.get("/openapi.json?version=thingiverse").json()
    assert anon_client.get("/openapi.json?version=thingiverse").json() == other != first
    assert generated == ["spec", "thingiverse"]
    settings.SITE_NAME = "Changed"  # any override: a test's settings are not the document's any more
    anon_client.get("/openapi.json")
    assert generated == ["spec", "thingiverse", "spec"]
