"""Path conventions every request shares (docs/decisions.md: Requests). The API's own pipeline (token, rate
limit, JSON-P) is the base view apps.core.views.ApiView."""
import re

from django.core.exceptions import RequestDataTooBig
from django.http import QueryDict
from django.urls import Resolver404, is_valid_path, resolve
from rest_framework.views import APIView

from apps.core.authentication import token_from_request
from apps.core.views import json_error, not_found

NUL_MESSAGE = "The request contains a NUL character, which no text field or path parameter accepts"
# A JSON `\u0000` escape: preceded by an even number of backslashes (an odd run would escape the
# backslash of `\u` itself, making it plain text).
_JSON_NUL_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


class RejectNulMiddleware:
    """docs/security.md (issue 14, finding 3): a NUL character anywhere in the path, the query string or a
    form or JSON body is a 400 with the error body, before any view, form or SQL driver sees it.

    PostgreSQL text cannot hold NUL: left alone, a NUL in a path parameter (`/users/%00/`), a query
    parameter or an OAuth parameter reached the driver as a DataError, a 500. Multipart bodies are left
    to the forms and serializers (Django's and DRF's CharField refuse NUL already), and a body too
    large to buffer to the view's own 413.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _request_has_nul(request):
            return json_error(400, NUL_MESSAGE, "INVALID_CHARACTER")
        return self.get_response(request)


def _request_has_nul(request) -> bool:
    if "\x00" in request.path_info or "\x00" in request.path:
        return True
    if _any_nul(request.GET):
        return True
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return False
    content_type = (request.content_type or "").lower()
    if content_type.startswith("multipart/"):
        return False
    try:
        body = request.body
    except RequestDataTooBig:
        return False
    if b"\x00" in body:
        return True
    stripped = body.lstrip()
    if "json" in content_type or stripped[:1] in (b"{", b"["):
        return _JSON_NUL_ESCAPE.search(body) is not None
    return b"%00" in body and _any_nul(QueryDict(body, encoding=request.encoding or "utf-8"))


def _any_nul(values) -> bool:
    return any("\x00" in key or any("\x00" in value for value in items) for key, items in values.lists())


class OptionalTrailingSlashMiddleware:
    """Serve every path with and without its trailing slash, by rewriting the path, never by redirecting.

    docs/decisions.md (compat): clients call paths in both forms, and a redirect would turn their POST into a
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
            # A call with a token is an API call: an API path with a bad id (`/groups/AAA/`) must not
            # become a site page (`/groups/<slug>`); it is the API's 404. Browsers send no token.
            if token_from_request(request) is not None and not _is_api_path(toggled, urlconf):
                return not_found(request)
            request.path_info = toggled
            request.path = request.path.removesuffix(path) + toggled
        return self.get_response(request)


def _is_api_path(path: str, urlconf) -> bool:
    try:
        match = resolve(path, urlconf)
    except Resolver404:
        return False
    view_class = getattr(match.func, "cls", None)
    return isinstance(view_class, type) and issubclass(view_class, APIView)


def _toggle_trailing_slash(path: str) -> str | None:
    if path == "/":
        return None
    return path[:-1] if path.endswith("/") else path + "/"
