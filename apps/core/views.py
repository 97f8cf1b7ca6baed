"""Django-level error handlers: unknown paths and crashes answer DECISIONS.md's JSON body, never HTML."""
import json

from django.http import HttpResponse

from apps.core.handlers import error_body, x_error_header


def json_error(status: int, message: str, error_type: str) -> HttpResponse:
    """DECISIONS.md's error body outside DRF (middleware, Django's error handlers)."""
    body = error_body(status, message, error_type)
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    response["X-Error"] = x_error_header(body["error"])
    return response


def not_found(request, exception=None):
    return json_error(404, "Not Found", "NOT_FOUND")


def server_error(request):
    return json_error(500, "Internal Server Error", "INTERNAL_ERROR")


def bad_request(request, exception=None):
    return json_error(400, "Bad Request", "BAD_REQUEST")


def permission_denied(request, exception=None):
    return json_error(403, "Forbidden", "FORBIDDEN")
