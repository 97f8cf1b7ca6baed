"""One request pipeline (apps.core.pipeline.views.ApiView): authentication, then the rate limit, then permissions."""
import pytest
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

from apps.core.pipeline.views import ApiView


def _view_classes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _view_classes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if isinstance(view_class, type) and issubclass(view_class, APIView):
                yield prefix + str(pattern.pattern), view_class


def test_every_api_view_of_the_site_derives_from_the_base_view():
    routes = list(_view_classes(get_resolver().url_patterns))
    assert len(routes) > 80
    strays = [(route, cls.__qualname__) for route, cls in routes if not issubclass(cls, ApiView)]
    assert strays == []


@pytest.mark.urls("apps.core.tests.urls")
@override_settings(RATE_LIMIT_REQUESTS=1)
def test_the_rate_limit_is_checked_before_the_permissions(app_client):
    # An app's read-only token may not use /echo (403), but it is counted first: over the limit it is 429.
    first = app_client.get("/echo")
    assert first.status_code == 403
    assert first["X-RateLimit-Remaining"] == "0"
    second = app_client.get("/echo")
    assert second.status_code == 429
    assert second["X-RateLimit-Remaining"] == "0"


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "application/json; indent=4", "text/html",
                                    "application/xml", "text/html,application/xhtml+xml,*/*;q=0.8"])
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
def test_content_negotiation_answers_as_drfs(accept, query):
    """ApiView decides the usual Accept headers without parsing them (a first read's cost): the same
    renderer and media type as DRF's negotiation, or the same refusal."""
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory
    from rest_framework.views import APIView

    from apps.core.pipeline.views import ApiView

    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    raw = APIRequestFactory().get("/things/1/" + query, **headers)

    def negotiate(method):
        view = ApiView()
        view.format_kwarg = None
        view.request = request = Request(raw)
        try:
            renderer, media_type = method(view, request)
        except Exception as exc:  # noqa: BLE001  (the refusal is what is compared)
            return type(exc)
        return type(renderer), media_type

    assert negotiate(ApiView.perform_content_negotiation) == negotiate(APIView.perform_content_negotiation)
