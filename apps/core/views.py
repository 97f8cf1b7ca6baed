"""Django-level error handlers: unknown paths and crashes answer DECISIONS.md's JSON body, never HTML.

The one exception is a site page (a route that is not an API view) answering 404 to a browser: a person
gets the site's own "not found" page rather than the API's JSON body.
"""
import json
import sys

from django.http import HttpResponse
from django.template.loader import render_to_string

from apps.core.handlers import error_body, service_unavailable_from, service_unavailable_log, x_error_header


def json_error(status: int, message: str, error_type: str, headers: dict | None = None) -> HttpResponse:
    """DECISIONS.md's error body outside DRF (middleware, Django's error handlers)."""
    body = error_body(status, message, error_type)
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json", headers=headers)
    response["X-Error"] = x_error_header(body["error"])
    return response


def not_found(request, exception=None):
    if _is_site_page(request) and "application/json" not in request.headers.get("Accept", ""):
        return HttpResponse(render_to_string("404.html", request=request), status=404)
    return json_error(404, "Not Found", "NOT_FOUND")


def _is_site_page(request) -> bool:
    from rest_framework.views import APIView

    match = getattr(request, "resolver_match", None)
    if match is None:
        return False  # no route at all: the API's answer (OptionalTrailingSlashMiddleware)
    view_class = getattr(match.func, "cls", None)
    return not (isinstance(view_class, type) and issubclass(view_class, APIView))


def server_error(request):
    # Django calls handler500 inside its `except` block, so the exception is still at hand: an outage
    # of the database or the broker outside a DRF view (a middleware, the OAuth endpoints, the site's
    # pages) is a 503 with Retry-After as inside one, never a 500.
    unavailable = service_unavailable_from(sys.exc_info()[1])
    if unavailable is not None:
        service_unavailable_log(request, sys.exc_info()[1])
        retry = {"Retry-After": str(unavailable.retry_after)}
        return json_error(503, unavailable.message, unavailable.error_type, headers=retry)
    return json_error(500, "Internal Server Error", "INTERNAL_ERROR")


def bad_request(request, exception=None):
    return json_error(400, "Bad Request", "BAD_REQUEST")


def permission_denied(request, exception=None):
    return json_error(403, "Forbidden", "FORBIDDEN")
