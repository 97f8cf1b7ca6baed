"""Django-level error handlers: unknown paths and crashes answer DECISIONS.md's JSON body, never HTML."""
import json
import sys

from django.http import HttpResponse

from apps.core.handlers import error_body, service_unavailable_from, service_unavailable_log, x_error_header


def json_error(status: int, message: str, error_type: str, headers: dict | None = None) -> HttpResponse:
    """DECISIONS.md's error body outside DRF (middleware, Django's error handlers)."""
    body = error_body(status, message, error_type)
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json", headers=headers)
    response["X-Error"] = x_error_header(body["error"])
    return response


def not_found(request, exception=None):
    return json_error(404, "Not Found", "NOT_FOUND")


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
