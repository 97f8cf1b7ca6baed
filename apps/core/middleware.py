"""Request and response conventions every API endpoint shares (DECISIONS.md: Requests, JSON-P, Rate limit)."""
import re

from django.urls import is_valid_path
from rest_framework.views import APIView

from apps.core.statuses import success_status_apply
from apps.core.views import json_error, not_found

# DECISIONS.md: JSON-P: letters, digits, `_`, `$`, `.`, at most 64 characters.
JSONP_CALLBACK = re.compile(r"[A-Za-z0-9_$.]{1,64}")


class OptionalTrailingSlashMiddleware:
    """Serve every path with and without its trailing slash, by rewriting the path, never by redirecting.

    DECISIONS.md (compat): clients call paths in both forms, and a redirect would turn their POST into a
    GET. A path that resolves in neither form is answered here with the JSON 404, so Django's HTML
    technical 404 (DEBUG) never shows.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        urlconf = getattr(request, "urlconf", None)
        path = request.path_info
        if not is_valid_path(path, urlconf):
            toggled = _toggle_trailing_slash(path)
            if toggled is None or not is_valid_path(toggled, urlconf):
                return not_found(request)
            request.path_info = toggled
            request.path = request.path.removesuffix(path) + toggled
        return self.get_response(request)


def _toggle_trailing_slash(path: str) -> str | None:
    if path == "/":
        return None
    return path[:-1] if path.endswith("/") else path + "/"


class ApiResponseMiddleware:
    """The API's response path, around DRF views only (the site's pages are not the API): the
    success-status policy (apps.core.statuses), the rate-limit headers and JSON-P."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(request, "is_api_view", False):
            success_status_apply(response)
        # Set by BearerTokenAuthentication, so every answer after authentication reports it, 4xx included.
        rate_limit = getattr(request, "rate_limit", None)
        if rate_limit is not None:
            for name, value in rate_limit.headers().items():
                response[name] = value
        callback = getattr(request, "jsonp_callback", None)
        if callback is not None and _is_json(response):
            _wrap_jsonp(response, callback)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        request.is_api_view = _is_api_view(view_func)
        if request.method != "GET" or "callback" not in request.GET or not request.is_api_view:
            return None
        callback = request.GET["callback"]
        if not JSONP_CALLBACK.fullmatch(callback):
            # Refused before the view runs: an arbitrary callback would let a page inject script.
            return json_error(
                400, "Invalid callback: use 1 to 64 letters, digits, '_', '$' or '.'", "INVALID_CALLBACK"
            )
        request.jsonp_callback = callback
        return None


def _is_api_view(view_func) -> bool:
    view_class = getattr(view_func, "cls", None)
    return isinstance(view_class, type) and issubclass(view_class, APIView)


def _is_json(response) -> bool:
    content_type = response.get("Content-Type", "").split(";")[0].strip()
    return content_type == "application/json" and not response.streaming


def _wrap_jsonp(response, callback: str) -> None:
    # `/**/` keeps the body from starting with attacker-chosen bytes (the Rosetta Flash defence);
    # nosniff stops a browser from reading the script as anything else.
    response.content = b"/**/" + callback.encode() + b"(" + response.content + b");"
    response["Content-Type"] = "application/javascript; charset=utf-8"
    response["X-Content-Type-Options"] = "nosniff"
